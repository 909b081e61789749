import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliSandbox, K, KM, waitFor } from "../helpers/cli.js";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

let box: CliSandbox;
const made = new Set<string>();

beforeAll(() => {
  box = new CliSandbox();
});
afterEach(async () => {
  for (const name of made) await box.k("kill", name);
  made.clear();
});
afterAll(async () => {
  await box.cleanup();
});

async function newSession(name: string, ...rest: string[]): Promise<string> {
  made.add(name);
  const ran = await box.k("new", name, ...rest);
  expect(ran.code, ran.stdout + ran.stderr).toBe(0);
  return ran.stdout;
}

const CELL = "[0-9a-f]{6,}";

describe("k and km as real processes", () => {
  it("print `agent-tty <version>` for --version, -V and version (k and km)", async () => {
    for (const flag of ["--version", "-V", "version"]) {
      expect((await box.k(flag)).stdout).toBe(`agent-tty ${VERSION}\n`);
      expect((await box.km(flag)).stdout).toBe(`agent-tty ${VERSION}\n`);
    }
  });

  it("k new starts the daemon on demand; a second new says (alive); k ls lists it", async () => {
    expect(await newSession("basic")).toBe("OK basic\n");
    expect((await box.k("new", "basic")).stdout).toBe("OK basic (alive)\n");
    const ls = await box.k("ls");
    expect(ls.stdout).toMatch(/^basic state=idle cmd='bash'$/m);
  });

  it("k run -j prints one JSON line like Python's json.dumps, with exit_code and cwd", async () => {
    await newSession("json");
    const ran = await box.k("run", "-j", "json", "echo hello 你好");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(
      new RegExp(`^\\{"cell_id": "${CELL}", "status": "done", "output": "hello 你好", "exit_code": 0, "cwd": "[^"]+"\\}\\n$`),
    );
    const failed = await box.runJson("json", "printf 'a\\tb\\n'; (exit 3)");
    expect(failed).toMatchObject({ status: "done", output: "a\tb", exit_code: 3 });
  });

  it("k run without -j prints the output text only; state persists across calls", async () => {
    await newSession("text");
    await box.k("run", "text", "cd /tmp && export MODE=warm");
    expect(await box.k("run", "text", "pwd; echo $MODE")).toMatchObject({ stdout: "/tmp\nwarm\n", code: 0 });
    expect((await box.k("run", "text", "true")).stdout).toBe("\n");
  });

  it("resolves the session: explicit argument > K_SESSION > the only session", async () => {
    await newSession("only");
    expect((await box.k("run", "WHO=only; echo one")).stdout).toBe("one\n");
    await newSession("second");
    await box.k("run", "second", "WHO=second");
    expect((await box.k("run", "echo two")).stdout).toBe("ERR no session found; use k ls or k new <session> bash\n");
    expect((await box.exec(K, ["run", "echo $WHO"], { env: { K_SESSION: "second" } })).stdout).toBe("second\n");
    expect((await box.exec(K, ["run", "only", "echo $WHO"], { env: { K_SESSION: "second" } })).stdout).toBe("only\n");
    expect((await box.exec(K, ["status"], { env: { K_SESSION: "nope" } })).stdout).toBe("ERR no session 'nope'; use k new nope bash\n");
  });

  it("says which session is missing, in JSON for -j, fire and poll", async () => {
    expect(await box.k("run", "-j", "ghost", "x")).toMatchObject({
      code: 1,
      stdout: '{"status": "error", "output": "no session \'ghost\'; use k new ghost bash"}\n',
    });
    expect((await box.k("fire", "ghost", "x")).stdout).toBe(
      '{"status": "error", "output": "no session \'ghost\'; use k new ghost bash"}\n',
    );
    expect((await box.k("poll", "ghost")).stdout).toBe('{"status": "error", "output": "no session \'ghost\'; use k new ghost bash"}\n');
    expect((await box.k("int", "ghost")).stdout).toBe("ERR no session 'ghost'; use k new ghost bash\n");
    expect((await box.k("kill", "ghost")).stdout).toBe("OK killed ghost\n");
    expect(await box.k("run", "bad/name", "x")).toMatchObject({ code: 1, stdout: "ERR invalid session name: 'bad/name'\n" });
    expect(await box.k("run", "-t", "0", "x", "y")).toMatchObject({
      code: 1,
      stdout: "ERR -t must be a positive integer\nusage: k run [-j] [-t N] [session] <code>\n",
    });
  });

  it("fire returns at once; poll says running, then done once (then unknown cell); km -1 wakes on completion", async () => {
    await newSession("async");
    const fired = await box.k("fire", "async", "sleep 1; echo ASYNC");
    expect(fired.stdout).toMatch(new RegExp(`^\\{"cell_id": "${CELL}", "status": "fired"\\}\\n$`));
    const id = (JSON.parse(fired.stdout) as { cell_id: string }).cell_id;
    expect((await box.k("poll", "async", id)).stdout).toBe(`{"cell_id": "${id}", "status": "running"}\n`);
    const km = await box.km("async", id, "-1");
    expect(km.code).toBe(0);
    expect(km.stdout).toMatch(
      new RegExp(
        `^\\{"cell_id": "${id}", "session": "async", "status": "done", "ts": "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}\\+00:00"\\}\\n$`,
      ),
    );
    expect(JSON.parse((await box.k("poll", "async", id)).stdout)).toMatchObject({
      cell_id: id,
      status: "done",
      output: "ASYNC",
      exit_code: 0,
    });
    expect((await box.k("poll", "async", id)).stdout).toBe(`{"cell_id": "${id}", "status": "error", "output": "unknown cell"}\n`);
    expect((await box.k("poll", "async", "not-a-cell-id!")).stdout).toBe('{"status": "error", "output": "invalid cell_id"}\n');
    // Malformed (not hex) is invalid, as in the original; "unknown cell" is for a well-formed id it never had.
    expect((await box.k("poll", "async", "not-a-cell")).stdout).toBe('{"status": "error", "output": "invalid cell_id"}\n');
    expect((await box.k("poll", "async", "abcdef123456")).stdout).toBe(
      '{"cell_id": "abcdef123456", "status": "error", "output": "unknown cell"}\n',
    );
  });

  it("km for a cell that already finished reports it at once (no lost wake-up)", async () => {
    await newSession("late");
    const id = (JSON.parse((await box.k("fire", "late", "echo quick")).stdout) as { cell_id: string }).cell_id;
    await waitFor(async () => (await box.k("status", "late")).stdout.includes("state=done"));
    const km = await box.km("late", id, "-1");
    expect(km.code).toBe(0);
    expect(JSON.parse(km.stdout)).toMatchObject({ cell_id: id, session: "late", status: "done" });
  });

  it("a busy session rejects fire and run with active cell and writes nothing to the terminal", async () => {
    await newSession("busy");
    // The cell runs until the test lets it end (a fixed sleep could end first on a loaded machine).
    const release = join(box.dir, "release-busy");
    const id = (JSON.parse((await box.k("fire", "busy", `until [ -e ${release} ]; do sleep 0.05; done`)).stdout) as { cell_id: string })
      .cell_id;
    expect(await box.k("fire", "busy", "echo NOPE1")).toMatchObject({
      code: 1,
      stdout: `{"status": "error", "output": "active cell '${id}'"}\n`,
    });
    expect((await box.k("run", "-j", "-t", "1", "busy", "echo NOPE2")).stdout).toBe(
      `{"status": "error", "output": "active cell '${id}'"}\n`,
    );
    expect((await box.k("status", "busy")).stdout).toBe(
      `OK busy pipe=ok state=running cell=${id} next='k poll busy ${id} or k int busy'\n`,
    );
    writeFileSync(release, "");
    await box.km("busy", id, "-1");
    expect((await box.k("status", "busy")).stdout).toBe(`OK busy pipe=ok state=done cell=${id} next='k poll busy ${id}'\n`);
    expect((await box.k("run", "busy", "echo next")).stdout).toBe("next\n");
    const history = (await box.k("history", "-n", "20", "busy")).stdout;
    expect(history).not.toContain("NOPE");
  });

  it("a timeout keeps the lock, even after the command ends by itself, until k int", async () => {
    await newSession("slow");
    const timedOut = await box.k("run", "-j", "-t", "1", "slow", "sleep 2; echo LATE");
    const id = (JSON.parse(timedOut.stdout) as { cell_id: string }).cell_id;
    expect(timedOut.stdout).toBe(`{"cell_id": "${id}", "status": "timeout", "output": ""}\n`);
    expect((await box.k("poll", "slow", id)).stdout).toBe(`{"cell_id": "${id}", "status": "timeout", "output": ""}\n`);
    expect(await box.k("poll", "slow", id)).toMatchObject({
      code: 1,
      stdout: `{"cell_id": "${id}", "status": "timeout", "output": "use k int or k kill"}\n`,
    });
    expect((await box.k("status", "slow")).stdout).toBe(`OK slow pipe=ok state=timeout cell=${id} next='k int slow or k kill slow'\n`);
    await waitFor(async () => (await box.k("history", "slow")).stdout.includes("LATE"));
    expect((await box.k("run", "-j", "slow", "echo x")).stdout).toBe(`{"status": "error", "output": "active cell '${id}'"}\n`);
    expect((await box.k("int", "slow")).stdout).toBe("OK\n");
    expect((await box.k("poll", "slow", id)).stdout).toBe(`{"cell_id": "${id}", "status": "error", "output": "interrupted"}\n`);
    expect((await box.k("run", "slow", "echo recovered")).stdout).toBe("recovered\n");
  });

  it("k int from another process ends a waiting k run with interrupted", async () => {
    await newSession("intr");
    const run = box.start(K, ["run", "-j", "intr", "sleep 30"]);
    await waitFor(async () => (await box.k("status", "intr")).stdout.includes("state=running"));
    expect((await box.k("int", "intr")).stdout).toBe("OK\n");
    expect(await run.exited).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^\\{"cell_id": "${CELL}", "status": "error", "output": "interrupted"\\}\\n$`));
    expect((await box.k("run", "intr", "echo alive")).stdout).toBe("alive\n");
  });

  it("a k run whose client dies is interrupted, like the original's Ctrl-C", async () => {
    await newSession("gone");
    const run = box.start(K, ["run", "gone", "sleep 30"]);
    await waitFor(async () => (await box.k("status", "gone")).stdout.includes("state=running"));
    run.child.kill("SIGKILL");
    await waitFor(async () => (await box.k("status", "gone")).stdout.includes("state=idle"));
    expect((await box.k("run", "gone", "echo fine")).stdout).toBe("fine\n");
  });

  it("km streams fired, done, notify and closed events, one JSON line each", async () => {
    await newSession("events");
    const km = box.start(KM, ["events"]);
    await waitFor(async () => (await box.k("notify", "events", "warm", "up")).code === 0 && km.stdout.includes("warm up"));
    const id = (JSON.parse((await box.k("run", "-j", "events", "echo e")).stdout) as { cell_id: string }).cell_id;
    expect((await box.k("notify", "events", "deploy", "complete")).stdout).toBe("OK notified: deploy complete\n");
    await km.waitFor("deploy complete");
    await box.k("kill", "events");
    expect(await km.exited).toBe(1);
    const events = km.lines().map((line) => JSON.parse(line) as Record<string, string>);
    const shapes = events.map(({ ts, ...rest }) => {
      expect(ts).toMatch(/\+00:00$/);
      return rest;
    });
    expect(shapes.slice(1)).toEqual([
      { cell_id: id, session: "events", status: "fired" },
      { cell_id: id, session: "events", status: "done" },
      { session: "events", status: "notify", from: expect.stringMatching(/@k:\d+$/), message: "deploy complete" },
      { session: "events", status: "closed" },
    ]);
    expect(km.lines()[1]).toMatch(/^\{"cell_id": "[^"]+", "session": "events", "status": "fired", "ts": "[^"]+"\}$/);
  });

  it("km -1 without a cell id exits after the first completion; km on a missing session reports an error event", async () => {
    await newSession("first");
    const km = box.start(KM, ["first", "-1"]);
    await waitFor(async () => (await box.k("notify", "first", "ping")).code === 0 && km.stdout.includes("ping"));
    await box.k("run", "first", "echo one");
    expect(await km.exited).toBe(0);
    expect(km.lines().at(-1)).toMatch(/"status": "done"/);
    const missing = await box.km("nosuch");
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^\{"session": "nosuch", "status": "error", "message": "no session 'nosuch'", "ts": "[^"]+"\}\n$/);
    expect(await box.km("bad/name")).toMatchObject({ code: 1, stderr: "km: invalid session name: 'bad/name'\n" });
  });

  it("k watch shows cell markers, output, ✓ and notifications live", async () => {
    await newSession("watched");
    const watch = box.start(K, ["watch", "watched"]);
    await watch.waitFor("watching watched (ctrl-c to stop)\n\n");
    const id = (JSON.parse((await box.k("run", "-j", "watched", "echo WATCHME")).stdout) as { cell_id: string }).cell_id;
    await box.k("notify", "watched", "hello humans");
    await watch.waitFor("hello humans");
    const lines = watch.lines();
    const at = lines.indexOf(`── ${id.slice(0, 8)} ──`);
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at)).toContain("WATCHME");
    expect(lines.indexOf("── ✓ ──")).toBeGreaterThan(lines.indexOf("WATCHME"));
    expect(lines.some((l) => /^📢 hello humans \(.+@k:\d+\)$/.test(l))).toBe(true);
    // A cell that ended with a non-zero exit status is marked with it, not ✓.
    await box.k("run", "watched", "echo FAILING; (exit 2)");
    await watch.waitFor("── ✗ 2 ──");
    expect(watch.lines().indexOf("── ✗ 2 ──")).toBeGreaterThan(watch.lines().indexOf("FAILING"));
    watch.child.kill("SIGINT");
    await watch.exited;
    expect(watch.stdout).toContain("stopped");
  });

  it("k history prints the last N*5 lines of the filtered view", async () => {
    await newSession("hist");
    await box.k("run", "hist", "for i in $(seq 1 12); do echo line$i; done");
    const last = (await box.k("history", "-n", "1", "hist")).stdout.trimEnd().split("\n");
    expect(last).toEqual(["line9", "line10", "line11", "line12", "── ✓ ──"]);
    expect((await box.k("history", "-n", "0", "hist")).stdout).toBe(
      "ERR -n must be a positive integer\nusage: k history [-n N] [session]\n",
    );
  });

  it("prompt mode (--prompt=text) frames by that exact prompt", async () => {
    expect(await newSession("py", "python3", "-i", "--prompt=>>>")).toBe("OK py prompt='>>>'\n");
    expect(await box.runJson("py", "print(6 * 7)")).toMatchObject({ status: "done", output: "42" });
  });

  it("hook mode resolves ./hook against the directory where k new ran", async () => {
    const hooks = join(box.dir, "hooks");
    mkdirSync(hooks, { recursive: true });
    const hook = join(hooks, "ends-at-prompt.sh");
    writeFileSync(
      hook,
      "#!/usr/bin/env bash\nwhile IFS= read -r line; do case \"$line\" in *'$'|*'$ '|*'#'|*'# ') exit 0 ;; esac; done\nexit 1\n",
      { mode: 0o755 },
    );
    made.add("hooked");
    const created = await box.exec(K, ["new", "hooked", "bash", "--prompt=./ends-at-prompt.sh"], { cwd: hooks });
    expect(created.stdout).toBe(`OK hooked prompt='${hook}'\n`);
    expect(await box.runJson("-t", "10", "hooked", "echo HOOK_OK")).toMatchObject({ status: "done", output: "HOOK_OK" });
    const missing = await box.exec(K, ["new", "nohook", "bash", "--prompt=./missing.sh"], { cwd: hooks });
    expect(missing).toMatchObject({ code: 1, stdout: `ERR hook not found: ${join(hooks, "missing.sh")}\n` });
  });

  it("hook mode runs the hook per cell only: a hook that waits for a line the cell prints does not block the start", async () => {
    const hooks = join(box.dir, "hooks-per-cell");
    mkdirSync(hooks, { recursive: true });
    writeFileSync(
      join(hooks, "detect.sh"),
      '#!/usr/bin/env bash\nwhile IFS= read -r line; do [ "$line" = HOOK_DONE ] && exit 0; done\nexit 1\n',
      { mode: 0o755 },
    );
    made.add("h");
    const created = await box.exec(K, ["new", "h", "bash", "--prompt=./detect.sh"], { cwd: hooks });
    expect(created.stdout).toMatch(/^OK h prompt=/);
    expect(await box.runJson("-t", "10", "h", "echo HOOK_OK; echo HOOK_DONE")).toMatchObject({ status: "done", output: "HOOK_OK" });
  });

  it("a program that exits during a cell ends it done with its exit code, and the session is gone", async () => {
    await newSession("leaving");
    const left = await box.runJson("leaving", "exit 7");
    expect(left).toMatchObject({ status: "done", exit_code: 7, exited: true });
    await waitFor(async () => (await box.k("ls")).stdout === "no sessions\n" || !(await box.k("ls")).stdout.includes("leaving"));
    expect((await box.k("run", "-j", "leaving", "echo")).stdout).toBe(
      '{"status": "error", "output": "no session \'leaving\'; use k new leaving bash"}\n',
    );
  });

  it("k new reports a program that cannot start", async () => {
    const ran = await box.k("new", "broken", "no-such-program-agent-tty");
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/^ERR create failed: .*no-such-program-agent-tty/);
  });
});
