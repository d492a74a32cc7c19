/** ANSI styling that can be switched off (NO_COLOR, --no-color, output that is not a terminal). */
export type Style = 'blue' | 'green' | 'magenta' | 'cyan' | 'yellow' | 'red' | 'dim' | 'bold';

const CODES: Record<Style, number> = {
  blue: 34,
  green: 32,
  magenta: 35,
  cyan: 36,
  yellow: 33,
  red: 31,
  dim: 2,
  bold: 1,
};

export type Paint = (style: Style, text: string) => string;

export function createPaint(enabled: boolean): Paint {
  return enabled ? (style, text) => `\u001b[${CODES[style]}m${text}\u001b[0m` : (_style, text) => text;
}

/** Whether to color: NO_COLOR and FORCE_COLOR win, else whether the stream is a terminal. */
export function colorWanted(env: Record<string, string | undefined>, isTty: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTty;
}
