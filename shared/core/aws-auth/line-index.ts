/**
 * Line and column of an offset into a data value, for issues and entry locations.
 *
 * Our own rather than the `yaml` package's `LineCounter`: the product reads YAML with the go-yaml
 * port in `goyaml/` and imports nothing else from `yaml`, and the package costs ~113 KiB of the `onEksEvent` bundle (~250 KiB of the CLI's `assess` code) for
 * what is a sorted array and a binary search. Same results as `LineCounter.linePos`.
 */
export class LineIndex {
  /** @param lineStarts offsets at which a line starts, ascending (the first is 0). */
  constructor(readonly lineStarts: readonly number[]) {}

  /** Lines start at 0 and after each `\n` (a CR-LF pair ends one line). */
  static of(text: string): LineIndex {
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return new LineIndex(starts);
  }

  /** 1-based line and column of `offset` (UTF-16 code units, as `String.prototype.slice`). */
  linePos(offset: number): { line: number; col: number } {
    const starts = this.lineStarts;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((starts[mid] ?? 0) < offset) low = mid + 1;
      else high = mid;
    }
    if (starts[low] === offset) return { line: low + 1, col: 1 };
    if (low === 0) return { line: 0, col: offset };
    return { line: low, col: offset - (starts[low - 1] ?? 0) + 1 };
  }
}
