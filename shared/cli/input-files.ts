/** The CLI's input files for the use cases: read with the size limit, decoded (shared/app/commands/decode-input.ts). */
import type { CommandFiles } from '../app/commands/command-inputs.ts';
import { decodeSnapshot, parseJsonText } from '../app/commands/decode-input.ts';
import type { ClusterSnapshot } from '../core/model.ts';
import type { CliIo } from './io.ts';
import { inputName, readInput } from './read-input.ts';

export async function loadJsonFile(io: CliIo, path: string): Promise<unknown> {
  return parseJsonText(await readInput(io, path), inputName(path));
}

/** Reads and validates a ClusterSnapshot file; the first problem names the file and JSON path. */
export async function loadSnapshot(io: CliIo, path: string): Promise<ClusterSnapshot> {
  return decodeSnapshot(await loadJsonFile(io, path), inputName(path));
}

/** The files a command's use case reads, through `io`. */
export function commandFiles(io: CliIo): CommandFiles {
  return {
    loadSnapshot: (path) => loadSnapshot(io, path),
    loadJson: (path) => loadJsonFile(io, path),
    readText: (path) => readInput(io, path),
    nameOf: inputName,
  };
}
