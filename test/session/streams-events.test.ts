import { describe, expect, it } from "vitest";
import { SessionClosedError, type SessionEvent } from "../../src/index.js";
import { spawnBash } from "../helpers/sessions.js";
import { drain } from "../helpers/common.js";

const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("output() streams", () => {
  it("two consumers each get everything from their own start, and iteration ends when the session closes", async () => {
    const sh = await spawnBash();
    const early = drain(sh.output());
    await sh.run("echo first-cell-out");
    const late = drain(sh.output());
    await sh.run("echo second-cell-out");
    await sh.close();

    const earlyText = (await early).join("");
    const lateText = (await late).join("");
    expect(earlyText.startsWith("echo first-cell-out\nfirst-cell-out\necho second-cell-out\nsecond-cell-out\n")).toBe(true);
    expect(lateText.startsWith("echo second-cell-out\nsecond-cell-out\n")).toBe(true);
    expect(lateText).not.toContain("first-cell-out");
  });

  it("closing the session adds no prompt to the clean stream or to history()", async () => {
    const sh = await spawnBash();
    const clean = drain(sh.output());
    await sh.run("echo only-line");
    expect(sh.history(10)).toBe("echo only-line\nonly-line");
    await sh.close();
    expect((await clean).join("")).toBe("echo only-line\nonly-line\n");
    expect(sh.history(10)).toBe("echo only-line\nonly-line");
  });

  it("{ raw: true } yields the terminal's text with escape sequences; the clean stream has none", async () => {
    const sh = await spawnBash();
    const raw = drain(sh.output({ raw: true }));
    const clean = drain(sh.output());
    const result = await sh.run("printf '\\e[31mred-text\\e[0m\\n'");
    expect(result.output).toBe("red-text");
    await sh.close();

    const rawText = (await raw).join("");
    const cleanText = (await clean).join("");
    expect(rawText).toContain("\x1b[31mred-text\x1b[0m");
    expect(typeof (await raw)[0]).toBe("string");
    expect(cleanText).toContain("red-text\n");
    expect(cleanText).not.toMatch(/\x1b/);
  });

  it("iteration ends when the program exits by itself", async () => {
    const sh = await spawnBash();
    const clean = drain(sh.output());
    const raw = drain(sh.output({ raw: true }));
    const events = drain(sh.events());
    const result = await sh.run("echo leaving; exit 3");
    expect(result).toMatchObject({ status: "exited", exitCode: 3 });
    expect((await clean).join("")).toContain("leaving\n");
    expect((await raw).join("")).toContain("leaving");
    expect((await events).at(-1)).toMatchObject({ type: "exit", exitCode: 3 });
    expect(sh.state).toBe("exited");
  });

  it("a consumer that never reads during a 10 MB output gets a dropped-bytes marker and a bounded buffer; a reading consumer gets everything", async () => {
    const sh = await spawnBash({ maxOutputBytes: 1 << 16 });
    const idle = sh.output();
    /** Reads `stream` up to the chunk that ends the flood (the marker is computed, so the echoed command does not count). */
    const readUntilEnd = async (stream: AsyncIterableIterator<string>, onChunk: (chunk: string) => void) => {
      for await (const chunk of stream) {
        onChunk(chunk);
        if (chunk.includes("flood-end-42\n")) break;
      }
    };
    let readingChars = 0;
    let readingMarkers = 0;
    let readingText = "";
    const reading = readUntilEnd(sh.output(), (chunk) => {
      if (chunk.startsWith("[agent-tty: dropped")) readingMarkers++;
      readingChars += chunk.length;
      readingText += chunk;
    });
    const line = "x".repeat(99);
    const result = await sh.run(`yes ${line} | head -n 100000; echo flood-end-$((6*7))`, { timeoutMs: 45_000 });
    expect(result.status).toBe("done");
    expect(result.truncated).toBe(true);
    await reading;
    expect(readingMarkers).toBe(0);
    expect(readingText.split("\n").filter((row) => row === line)).toHaveLength(100_000);

    const chunks: string[] = [];
    await readUntilEnd(idle, (chunk) => chunks.push(chunk));
    const markers = chunks.filter((chunk) => /^\[agent-tty: dropped \d+ bytes\]$/.test(chunk));
    expect(markers).toHaveLength(1);
    expect(chunks[0]).toBe(markers[0]);
    const dropped = Number(/(\d+)/.exec(markers[0] ?? "")?.[1]);
    const kept = chunks.slice(1).join("");
    expect(dropped).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual((8 << 20) + (1 << 16));
    expect(dropped + kept.length).toBe(readingChars);
    expect(kept.endsWith(`${line}\nflood-end-42\n`)).toBe(true);
  }, 60_000);
});

describe("events, listeners, notify, history", () => {
  it("events() yields fired, done, notify, exit in order with ISO timestamps and the session name", async () => {
    const sh = await spawnBash({ name: "ev-order" });
    const events = drain(sh.events());
    const result = await sh.run("echo hi");
    sh.notify("deploy complete");
    await sh.close();

    const seen = await events;
    expect(seen.map((event) => event.type)).toEqual(["fired", "done", "notify", "exit"]);
    expect(seen[0]).toMatchObject({ type: "fired", cellId: result.cellId, status: "running", session: "ev-order" });
    expect(seen[1]).toMatchObject({ type: "done", cellId: result.cellId, status: "done", exitCode: 0 });
    expect(seen[2]).toMatchObject({ type: "notify", message: "deploy complete" });
    for (const event of seen) {
      expect(event.session).toBe("ev-order");
      expect(event.ts).toMatch(ISO_8601);
      expect(new Date(event.ts).toISOString()).toBe(event.ts);
    }
    const times = seen.map((event) => Date.parse(event.ts));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('on("cell") sees fired and done, done before run() resolves; on("notify") and on("exit") fire; on("data") gets raw text', async () => {
    const sh = await spawnBash();
    const cells: SessionEvent[] = [];
    const notes: SessionEvent[] = [];
    const exits: SessionEvent[] = [];
    let data = "";
    sh.on("cell", (event) => cells.push(event));
    sh.on("notify", (event) => notes.push(event));
    sh.on("exit", (event) => exits.push(event));
    sh.on("data", (text) => {
      data += text;
    });

    const typesAtResolve = await sh
      .run("printf '\\e[32mgreen\\e[0m\\n'")
      .then((result) => ({ result, types: cells.map((event) => event.type) }));
    expect(typesAtResolve.types).toEqual(["fired", "done"]);
    expect(cells[1]).toMatchObject({ cellId: typesAtResolve.result.cellId, status: "done" });
    expect(data).toContain("\x1b[32mgreen");

    sh.notify("step 1 finished");
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ type: "notify", message: "step 1 finished" });
    expect(notes[0]?.ts).toMatch(ISO_8601);

    expect(exits).toHaveLength(0);
    await sh.close();
    expect(exits).toHaveLength(1);
    expect(exits[0]?.type).toBe("exit");
    expect(() => sh.notify("too late")).toThrow(SessionClosedError);
  });

  it("once() hears one event, off() stops a listener, and a session offers no way to emit its events", async () => {
    const sh = await spawnBash();
    const once: string[] = [];
    const kept: string[] = [];
    const removed: string[] = [];
    const onRemoved = (event: SessionEvent) => removed.push(event.type);
    sh.once("cell", (event) => once.push(event.type))
      .on("cell", (event) => kept.push(event.type))
      .on("cell", onRemoved);
    await sh.run("true");
    sh.off("cell", onRemoved);
    await sh.run("true");
    expect(once).toEqual(["fired"]);
    expect(kept).toEqual(["fired", "done", "fired", "done"]);
    expect(removed).toEqual(["fired", "done"]);
    expect("emit" in sh).toBe(false);
  });

  it("every settled status emits done: an interrupted cell's done event carries status interrupted", async () => {
    const sh = await spawnBash();
    const done: SessionEvent[] = [];
    sh.on("cell", (event) => {
      if (event.type === "done") done.push(event);
    });
    const cell = sh.fire("sleep 30");
    await sh.interrupt();
    const result = await cell.result;
    expect(result.status).toBe("interrupted");
    expect(done).toEqual([expect.objectContaining({ cellId: cell.id, status: "interrupted" })]);
  });

  it("an events() consumer that falls behind gets an error event saying how many were dropped", async () => {
    const sh = await spawnBash();
    const events = sh.events();
    for (let index = 0; index < 10_050; index++) sh.notify(`n${index}`);
    await sh.close();
    const seen = await drain(events);
    expect(seen[0]?.type).toBe("error");
    expect(seen[0]?.message).toMatch(/dropped \d+ events/);
    expect(seen.length).toBeLessThanOrEqual(10_001);
    expect(seen.at(-1)?.type).toBe("exit");
    expect(seen.at(-2)).toMatchObject({ type: "notify", message: "n10049" });
  });

  it("history(n) returns the last n lines of the clean transcript, input lines included, no prompt noise", async () => {
    const sh = await spawnBash();
    await sh.run("echo first");
    await sh.run("printf 'a\\nb\\n'");
    expect(sh.history(3)).toBe("printf 'a\\nb\\n'\na\nb");
    expect(sh.history(100)).toBe("echo first\nfirst\nprintf 'a\\nb\\n'\na\nb");
    expect(sh.history(1)).toBe("b");
  });

  it("history() shows an answered question as a person saw it: the question, the typed answer, the reply", async () => {
    const sh = await spawnBash();
    const asked = await sh.run(`read -p "name? " n; echo "hi $n"`, { untilInput: true, timeoutMs: 10_000 });
    expect(asked.status).toBe("awaiting_input");
    sh.type("Ada\n");
    await sh.wait();
    expect(sh.history(3)).toBe(`read -p "name? " n; echo "hi $n"\nname? Ada\nhi Ada`);
    expect(sh.history(10)).not.toMatch(/bash-[\d.]+\$|\x1b/);
  });

  it("history() rejects a count that is not a positive integer", async () => {
    const sh = await spawnBash();
    expect(() => sh.history(0)).toThrow(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
    expect(() => sh.history(1.5)).toThrow(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
  });
});
