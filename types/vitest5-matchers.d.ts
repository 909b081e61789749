// Types agent-tty's matchers on Vitest 5's own `expect` (Vitest 5's `Matchers<R, T>` differs from
// Vitest 4's `Matchers<T>`, so one declaration cannot serve both). Add "agent-tty/vitest5-matchers"
// to `compilerOptions.types`, or `import type {} from "agent-tty/vitest5-matchers"` once.
// `expect` imported from "agent-tty/vitest" is typed on both versions without it.
import type { TerminalMatchers } from "./matchers.js";

declare module "vitest" {
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> extends TerminalMatchers<R> {}
}

export {};
