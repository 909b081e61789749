import { describe, expect, it } from "vitest";
import { parseArgs, type ArgContext } from "../../src/cli/client/args.js";
import { planCommand, splitWords } from "../../src/cli/daemon/command-line.js";
import { formatEntry, MAX_LINE_CHARS, WatchLog, type WatchEntry } from "../../src/cli/daemon/watch-log.js";
import { replyWithoutSessions } from "../../src/cli/shared/messages.js";
import { isValidSessionName, LineSplitter, LineTooLongError } from "../../src/cli/shared/protocol.js";
import { pyJson, pyRepr, pyTimestamp } from "../../src/cli/shared/python.js";

const ctx = (env: NodeJS.ProcessEnv = {}, cwd = "/work"): ArgContext => ({
  env,
  cwd,
  from: () => "bash@k:1",
  color: false,
  size: () => [100, 30],
});

describe("pyJson prints like Python's json.dumps(ensure_ascii=False)", () => {
  it("uses ', ' and ': ' separators and keeps key order", () => {
    expect(pyJson({ cell_id: "ab", status: "done", output: "hi" })).toBe('{"cell_id": "ab", "status": "done", "output": "hi"}');
  });
  it("leaves non-ASCII characters unescaped", () => {
    expect(pyJson({ output: "你好 ✓ é" })).toBe('{"output": "你好 ✓ é"}');
  });
  it("escapes control characters as Python does", () => {
    expect(pyJson('a\nb\tc\u0001\u001b"\\')).toBe('"a\\nb\\tc\\u0001\\u001b\\"\\\\"');
    expect(pyJson("\u007f\u2028")).toBe('"\u007f\u2028"');
  });
  it("prints lists, numbers, booleans and null, and drops undefined keys", () => {
    expect(pyJson({ a: [1, "x"], b: true, c: null, d: undefined, e: 0 })).toBe('{"a": [1, "x"], "b": true, "c": null, "e": 0}');
    expect(pyJson([])).toBe("[]");
    expect(pyJson({})).toBe("{}");
    expect(pyJson(1.5)).toBe("1.5");
    expect(pyJson(2e-7)).toBe("2e-07");
  });
});

describe("pyRepr and pyTimestamp", () => {
  it("quotes like Python's repr", () => {
    expect(pyRepr("x")).toBe("'x'");
    expect(pyRepr("it's")).toBe('"it\'s"');
    expect(pyRepr("a'b\"c")).toBe("'a\\'b\"c'");
    expect(pyRepr("a\nb\\")).toBe("'a\\nb\\\\'");
    expect(pyRepr("\u0007")).toBe("'\\x07'");
  });
  it("prints UTC ISO-8601 with microseconds and +00:00", () => {
    expect(pyTimestamp(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678)))).toBe("2025-01-02T03:04:05.678000+00:00");
  });
});

describe("session names", () => {
  it("accepts the original's names and rejects traversal", () => {
    for (const ok of ["w", "work-1", "a.b", "A_B"]) expect(isValidSessionName(ok)).toBe(true);
    for (const bad of ["", "..", "a..b", "a/b", "a b", ".", "...", "x;y"]) expect(isValidSessionName(bad)).toBe(false);
  });
});

describe("parseArgs follows the original k's command line", () => {
  const request = (argv: string[], env?: NodeJS.ProcessEnv) => {
    const plan = parseArgs(argv, ctx(env));
    if (plan.kind !== "request") throw new Error(`expected a request, got ${JSON.stringify(plan)}`);
    return plan.request;
  };
  const printed = (argv: string[], env?: NodeJS.ProcessEnv) => {
    const plan = parseArgs(argv, ctx(env));
    if (plan.kind !== "print") throw new Error(`expected output, got ${JSON.stringify(plan)}`);
    return plan;
  };

  it("run: default 30 s, -j, -t N, explicit session or resolution", () => {
    expect(request(["run", "w", "echo hi"])).toMatchObject({ op: "run", session: "w", code: "echo hi", timeoutMs: 30_000, json: false });
    expect(request(["run", "-j", "-t", "5", "w", "x"])).toMatchObject({ session: "w", timeoutMs: 5_000, json: true });
    expect(request(["await", "-t", "2", "-j", "x"])).toMatchObject({ op: "run", session: null, code: "x", timeoutMs: 2_000 });
    expect(request(["run", "x"], { K_SESSION: "envs" })).toMatchObject({ session: "envs" });
    expect(request(["run", "w", "x"], { K_SESSION: "envs" })).toMatchObject({ session: "w" });
  });

  it("fire: default 300 s", () => {
    expect(request(["fire", "w", "make"])).toMatchObject({ op: "fire", session: "w", code: "make", timeoutMs: 300_000 });
    expect(request(["fire", "-t", "600", "make"])).toMatchObject({ session: null, timeoutMs: 600_000 });
  });

  it("rejects a bad -t or -n with the original's two lines", () => {
    expect(printed(["run", "-t", "0", "w", "x"])).toEqual({
      kind: "print",
      stdout: "ERR -t must be a positive integer\nusage: k run [-j] [-t N] [session] <code>\n",
      exit: 1,
    });
    expect(printed(["fire", "-t", "abc", "w", "x"]).stdout).toBe(
      "ERR -t must be a positive integer\nusage: k fire [-t N] [session] <code>\n",
    );
    expect(printed(["history", "-n", "-2"]).stdout).toBe("ERR -n must be a positive integer\nusage: k history [-n N] [session]\n");
    expect(printed(["run", "-t"]).stdout).toBe("usage: k run [-j] [-t N] [session] <code>\n");
    expect(printed(["run"]).stdout).toBe("usage: k run [-j] [-t N] [session] <code>\n");
  });

  it("rejects invalid session names, from the command line or K_SESSION", () => {
    expect(printed(["run", "a/b", "x"])).toEqual({ kind: "print", stdout: "ERR invalid session name: 'a/b'\n", exit: 1 });
    expect(printed(["int"], { K_SESSION: "../x" }).stdout).toBe("ERR invalid session name: '../x'\n");
    // The library's 128-character cap holds here too (a longer name used to pass k and fail in the daemon).
    expect(printed(["new", "n".repeat(129)]).stdout).toBe(`ERR invalid session name: '${"n".repeat(129)}'\n`);
    expect(printed(["kill", "a b"]).stdout).toBe("ERR invalid session name: 'a b'\n");
  });

  it("new: command words, --prompt text, hook paths resolved against the cwd", () => {
    expect(request(["new", "p", "python3", "-i"])).toMatchObject({
      op: "new",
      session: "p",
      command: "python3 -i",
      prompt: null,
      hook: null,
      cwd: "/work",
    });
    expect(request(["new", "s"])).toMatchObject({ command: null });
    expect(request(["new", "d", "gdb -q x", "--prompt=(gdb)"])).toMatchObject({ command: "gdb -q x", prompt: "(gdb)", hook: null });
    expect(request(["new", "h", "bash", "--prompt=./hooks/detect.sh"])).toMatchObject({ prompt: null, hook: "/work/hooks/detect.sh" });
    expect(request(["new", "l", "--label=api tests", "bash"])).toMatchObject({ label: "api tests", command: "bash" });
  });

  it("version, help and unknown verbs", () => {
    for (const flag of ["--version", "-V", "version"]) expect(parseArgs([flag], ctx())).toEqual({ kind: "version" });
    expect(printed([]).exit).toBe(0);
    expect(printed(["--help"]).stdout).toContain("k new");
    expect(printed(["frobnicate"]).exit).toBe(1);
  });

  it("history -n, poll with a cell id, notify words, keys and expect", () => {
    expect(request(["history", "-n", "3", "w"])).toMatchObject({ op: "history", session: "w", n: 3 });
    expect(request(["poll", "w", "abc123"])).toMatchObject({ op: "poll", session: "w", cellId: "abc123" });
    expect(request(["notify", "w", "deploy", "done"])).toMatchObject({
      op: "notify",
      session: null,
      words: ["w", "deploy", "done"],
      from: "bash@k:1",
    });
    expect(request(["keys", "w", "ctrl+c", "enter"])).toMatchObject({ op: "keys", words: ["w", "ctrl+c", "enter"] });
    expect(request(["expect", "w", "\\$ $", "-t", "3", "-j"])).toMatchObject({
      op: "expect",
      words: ["w", "\\$ $"],
      timeoutMs: 3_000,
      json: true,
    });
    expect(request(["attach", "w"])).toMatchObject({ op: "attach", session: "w", cols: 100, rows: 30 });
  });
});

describe("command lines given to k new", () => {
  it("splits simple words and quotes like sh", () => {
    expect(splitWords("gdb -q /tmp/test")).toEqual(["gdb", "-q", "/tmp/test"]);
    expect(splitWords(`python3 -c 'print("a b")'`)).toEqual(["python3", "-c", 'print("a b")']);
    expect(splitWords(`echo "a \\"b\\"" c\\ d`)).toEqual(["echo", 'a "b"', "c d"]);
    expect(splitWords("a#b x~y")).toEqual(["a#b", "x~y"]);
  });
  it("reports shell syntax", () => {
    for (const line of ["a | b", "sleep 1; x", "echo $HOME", "ls *.txt", "cd ~", "echo 'open", "a && b", "x > y"]) {
      expect(splitWords(line)).toBeNull();
    }
  });
  it("moves leading assignments (and env's) into the environment", () => {
    expect(planCommand("FOO=1 BAR=x python3 -i")).toEqual({ env: { FOO: "1", BAR: "x" }, argv: ["python3", "-i"] });
    expect(planCommand("env A=b node")).toEqual({ env: { A: "b" }, argv: ["node"] });
    expect(planCommand("bash -c 'sleep 1; exit 3'")).toEqual({ env: {}, argv: ["bash", "-c", "sleep 1; exit 3"] });
    expect(planCommand("a | b")).toEqual({ env: {}, argv: null });
  });
});

describe("the watch view", () => {
  const texts = (entries: WatchEntry[]) => entries.map((e) => formatEntry(e, false));

  it("keeps lines, drops blank lines and Python continuation prompts, marks cells", () => {
    const log = new WatchLog();
    log.mark({ kind: "fired", cellId: "3f2a1b0c9d8e" });
    log.pushText("$ cd app\r\n\n... \n...\npytest -q\n..F\npart");
    log.pushText("ial\n");
    log.mark({ kind: "end", status: "done" });
    log.mark({ kind: "notify", from: "bash@k:9", message: "deploy complete" });
    expect(texts(log.tail(100))).toEqual([
      "── 3f2a1b0c ──",
      "$ cd app",
      "pytest -q",
      "..F",
      "partial",
      "── ✓ ──",
      "📢 deploy complete (bash@k:9)",
    ]);
  });

  it("hides the repeats of five or more identical lines (frame noise) but keeps shorter runs", () => {
    const log = new WatchLog();
    log.pushText("r\nr\nr\nr\nend\n$\n$\n$\n$\n$\n$\nafter\n");
    log.flush();
    expect(texts(log.tail(100))).toEqual(["r", "r", "r", "r", "end", "$", "after"]);
  });

  it("streams entries to subscribers and keeps a bounded tail", () => {
    const log = new WatchLog(3);
    const seen: string[] = [];
    const stop = log.subscribe((e) => seen.push(formatEntry(e, false)));
    log.pushText("a\nb\nc\nd\n");
    stop();
    log.pushText("e\n");
    expect(seen).toEqual(["a", "b", "c", "d"]);
    expect(texts(log.tail(10))).toEqual(["c", "d", "e"]);
  });

  it("holds a bounded amount whatever is printed: a 50 MB line, a flood of identical lines", () => {
    const log = new WatchLog();
    const chunk = "x".repeat(1 << 20);
    for (let i = 0; i < 50; i++) log.pushText(chunk);
    log.pushText("\n");
    const [line] = texts(log.tail(1));
    expect(line?.length).toBeLessThan(MAX_LINE_CHARS + 100);
    expect(line).toContain(`[… ${50 * (1 << 20) - MAX_LINE_CHARS} characters omitted …]`);
    const repeats = "y\n".repeat(1 << 20);
    for (let i = 0; i < 20; i++) log.pushText(repeats);
    log.pushText("done\n");
    // The run of 20 M identical lines is noise: its first line shows, then what follows it.
    expect(texts(log.tail(2))).toEqual(["y", "done"]);
  });

  it("keeps the tail's bound while trimming in batches", () => {
    const log = new WatchLog(10);
    for (let i = 0; i < 35; i++) log.pushText(`line ${i}\n`);
    expect(texts(log.tail(100))).toEqual(Array.from({ length: 10 }, (_, i) => `line ${25 + i}`));
  });

  it("colors markers only when asked", () => {
    expect(formatEntry({ kind: "end", status: "timeout" }, false)).toBe("── ⏱ ──");
    expect(formatEntry({ kind: "end", status: "interrupted" }, false)).toBe("── ✗ ──");
    expect(formatEntry({ kind: "end", status: "done" }, true)).toBe("\x1b[2;32m── ✓ ──\x1b[0m");
  });
});

describe("answers without a daemon", () => {
  it("are what a daemon with no session would say", () => {
    expect(replyWithoutSessions({ op: "ls" })?.stdout).toBe("no sessions\n");
    expect(replyWithoutSessions({ op: "kill", session: "w" })?.stdout).toBe("OK killed w\n");
    expect(replyWithoutSessions({ op: "run", session: "x", code: "c", timeoutMs: 1, json: true })?.stdout).toBe(
      '{"status": "error", "output": "no session \'x\'; use k new x bash"}\n',
    );
    expect(replyWithoutSessions({ op: "run", session: "x", code: "c", timeoutMs: 1, json: false })?.stdout).toBe(
      "no session 'x'; use k new x bash\n",
    );
    expect(replyWithoutSessions({ op: "int", session: null })?.stdout).toBe("ERR no session found; use k ls or k new <session> bash\n");
    expect(replyWithoutSessions({ op: "status", session: "w" })?.stdout).toBe("ERR no session 'w'; use k new w bash\n");
  });
});

describe("LineSplitter", () => {
  it("returns complete lines only", () => {
    const s = new LineSplitter();
    expect(s.push('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(s.push(":2}\n\n")).toEqual(['{"b":2}']);
  });

  it("joins a line sent in many pieces once its newline comes", () => {
    const s = new LineSplitter();
    for (const piece of ["ab", "cd", "ef"]) expect(s.push(piece)).toEqual([]);
    expect(s.push("g\nh")).toEqual(["abcdefg"]);
    expect(s.push("\n")).toEqual(["h"]);
  });

  it("throws LineTooLongError once an unfinished line passes its limit, whatever the pieces", () => {
    const s = new LineSplitter(10);
    expect(s.push("0123456789\n")).toEqual(["0123456789"]);
    expect(s.push("01234")).toEqual([]);
    expect(() => s.push("567890")).toThrow(LineTooLongError);
  });
});
