/**
 * How a program is about to be started. A detector's `setup` may return a
 * changed copy (extra args, env, files) before the PTY is spawned.
 */
export interface SpawnPlan {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}
