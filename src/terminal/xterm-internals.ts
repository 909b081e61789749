import type { Terminal } from "@xterm/headless";

/**
 * The three pieces of `@xterm/headless` internals the screen relies on, all
 * checked at run time. xterm's public API has no synchronous write (its
 * `write()` parses later, on a timer), no parser state and no scroll
 * margins; everything here is used only when present, and the screen falls
 * back to the public API otherwise.
 */
export interface XtermInternals {
  /** Parses `data` now, before returning (`_core.writeSync`). */
  writeSync(data: string): void;
  /** Whether the parser is in its ground state: not inside an escape sequence. */
  parserInGround(): boolean;
  /** Whether the active buffer's scroll region is the whole screen. */
  fullScrollRegion(): boolean;
}

interface CoreShape {
  readonly writeSync: (data: string) => void;
  readonly rows: number;
  readonly buffer: { readonly scrollTop: number; readonly scrollBottom: number };
  readonly _inputHandler: { readonly _parser: { readonly currentState: number } };
}

/** Returns access to xterm's internals, or `undefined` if their shape changed. */
export function xtermInternals(terminal: Terminal): XtermInternals | undefined {
  const core: unknown = Reflect.get(terminal, "_core");
  if (!hasCoreShape(core)) return undefined;
  return {
    writeSync: (data) => core.writeSync(data),
    parserInGround: () => core._inputHandler._parser.currentState === 0,
    fullScrollRegion: () => core.buffer.scrollTop === 0 && core.buffer.scrollBottom === core.rows - 1,
  };
}

function hasCoreShape(core: unknown): core is CoreShape {
  if (typeof core !== "object" || core === null) return false;
  const shape = core as Partial<Record<keyof CoreShape, unknown>>;
  const buffer = shape.buffer as Partial<CoreShape["buffer"]> | undefined;
  const handler = shape._inputHandler as { _parser?: { currentState?: unknown } } | undefined;
  return (
    typeof shape.writeSync === "function" &&
    typeof shape.rows === "number" &&
    typeof buffer?.scrollTop === "number" &&
    typeof buffer.scrollBottom === "number" &&
    typeof handler?._parser?.currentState === "number"
  );
}
