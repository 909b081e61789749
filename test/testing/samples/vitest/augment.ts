// With Vitest 4, agent-tty/vitest types Vitest's own `expect` by itself (through jest.Matchers).
// The Vitest 5 run replaces this file with `import type {} from "agent-tty/vitest5-matchers"`.
export {};
