import { describe, expect, it } from "vitest";
import { autoDetector } from "../../src/detect/auto.js";
import { classifyNested, startsRemoteShell } from "../../src/detect/nested.js";

const isShell = (name: string) => ["bash", "zsh", "fish", "sh", "dash"].includes(name);
const isRepl = (command: string, args: readonly string[]) => command.startsWith("python") && !args.includes("-c");

describe("which programs start a shell elsewhere (auto picks in-band shell integration for them)", () => {
  it.each([
    ["ssh", ["host"], true],
    ["ssh", ["-tt", "-p", "2222", "-o", "BatchMode=yes", "me@host"], true],
    ["ssh", ["host", "ls", "-l"], false],
    ["ssh", ["-p", "2222"], false],
    ["docker", ["exec", "-it", "web", "bash"], true],
    ["podman", ["exec", "--interactive", "--tty", "web", "sh"], true],
    ["docker", ["exec", "web", "ls"], false],
    ["kubectl", ["exec", "-ti", "pod", "--", "bash"], true],
    ["kubectl", ["logs", "-f", "pod"], false],
    ["/usr/bin/ssh", ["host"], true],
  ] as const)("%s %j → %s", (command, args, expected) => {
    expect(startsRemoteShell(command, args)).toBe(expected);
  });

  it("auto gives ssh/docker exec/kubectl exec shell integration that leaves the command line alone (typed in-band)", async () => {
    const detector = autoDetector("kubectl", ["exec", "-it", "pod", "--", "bash"]);
    expect(detector.name).toBe("shell-integration");
    const plan = { command: "kubectl", args: ["exec", "-it", "pod", "--", "bash"], cwd: "/", env: {} };
    expect(await detector.setup?.(plan)).toEqual(plan);
    detector.dispose?.();
    expect(autoDetector("ssh", ["host", "uptime"]).name).toBe("input-wait");
  });
});

describe("which foreground programs a cell leaves become nested levels", () => {
  it.each([
    [["ssh", "-tt", "host"], { kind: "shell", remote: true }],
    [["ssh", "host", "cat"], undefined],
    [["bash"], { kind: "shell", remote: false }],
    [["-bash"], { kind: "shell", remote: false }],
    [["bash", "script.sh"], undefined],
    [["bash", "-c", "read x"], undefined],
    [["su", "-"], { kind: "shell", remote: false }],
    [["python3"], { kind: "repl" }],
    [["python3", "-c", "input()"], undefined],
    [["cat"], undefined],
    [["docker", "exec", "-it", "c", "sh"], { kind: "shell", remote: true }],
  ] as const)("%j → %j", (commandLine, expected) => {
    expect(classifyNested(commandLine, isShell, isRepl)).toEqual(expected);
  });
});
