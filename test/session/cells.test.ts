import { describe, expect, it } from "vitest";
import { AgentTtyError, type SessionEvent } from "../../src/index.js";
import { spawnBash } from "../helpers/sessions.js";

describe("fire() and the Cell handle", () => {
  it("fire() returns at once with an id and status running; result resolves with the same id", async () => {
    const sh = await spawnBash();
    const cell = sh.fire("echo fired");
    expect(typeof cell.id).toBe("string");
    expect(cell.id.length).toBeGreaterThan(0);
    expect(cell.status).toBe("running");
    const r = await cell.result;
    expect(r.cellId).toBe(cell.id);
    expect(r.output).toBe("fired");
    expect(cell.status).toBe("done");
  });

  it("iterating a cell yields its clean output live, before the cell settles", async () => {
    const sh = await spawnBash();
    const cell = sh.fire("echo one; sleep 0.4; echo two");
    const chunks: string[] = [];
    let statusWhenOneArrived: string | undefined;
    for await (const chunk of cell) {
      chunks.push(chunk);
      if (statusWhenOneArrived === undefined && chunks.join("").includes("one")) statusWhenOneArrived = cell.status;
    }
    expect(statusWhenOneArrived).toBe("running");
    const r = await cell.result;
    expect(chunks.join("").trimEnd()).toBe("one\ntwo");
    expect(chunks.join("").trimEnd()).toBe(r.output);
    expect(chunks.join("")).not.toContain("\x1b");
    expect(chunks.join("")).not.toContain("sleep");
  });

  it("a cell iterated after it settled yields its whole output and ends", async () => {
    const sh = await spawnBash();
    const cell = sh.fire("printf 'a\\nb\\n'");
    const r = await cell.result;
    let all = "";
    for await (const chunk of cell) all += chunk;
    expect(all.trimEnd()).toBe(r.output);
    expect(r.output).toBe("a\nb");
  });
});

describe("poll()", () => {
  it("is synchronous and tracks a cell from running to its final status and output", async () => {
    const sh = await spawnBash();
    const cell = sh.fire("sleep 0.2; echo polled");
    const running = sh.poll(cell.id);
    expect(running).not.toBeInstanceOf(Promise);
    expect(running?.cellId).toBe(cell.id);
    expect(running?.status).toBe("running");
    expect(sh.poll()?.cellId).toBe(cell.id);
    await cell.result;
    const settled = sh.poll(cell.id);
    expect(settled?.status).toBe("done");
    expect(settled?.output).toBe("polled");
  });

  it("a settled cell keeps its output while later cells run", async () => {
    const sh = await spawnBash();
    const first = await sh.run("echo first-output");
    for (let index = 0; index < 5; index++) await sh.run(`echo later-${index}`);
    const snapshot = sh.poll(first.cellId);
    expect(snapshot?.status).toBe("done");
    expect(snapshot?.output).toBe("first-output");
    expect(sh.poll()?.output).toBe("later-4");
  });

  it("poll() with no id before any cell is undefined", async () => {
    const sh = await spawnBash();
    expect(sh.poll()).toBeUndefined();
  });

  it("an unknown id throws AgentTtyError ERR_UNKNOWN_CELL", async () => {
    const sh = await spawnBash();
    await sh.run("true");
    let error: unknown;
    try {
      sh.poll("no-such-cell");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentTtyError);
    expect((error as AgentTtyError).code).toBe("ERR_UNKNOWN_CELL");
  });

  it("a timed-out cell polls as timeout", async () => {
    const sh = await spawnBash();
    // Time for "partial" to come under load (Linux may hand the typed line over some 300-500 ms late).
    const r = await sh.run("echo partial; sleep 30", { timeoutMs: 2_000 });
    expect(r.status).toBe("timeout");
    expect(r.output).toBe("partial");
    expect(sh.poll(r.cellId)?.status).toBe("timeout");
    await sh.interrupt();
  });
});

describe("events", () => {
  it('"done" is emitted with the status before run() resolves', async () => {
    const sh = await spawnBash();
    const seen: SessionEvent[] = [];
    sh.on("cell", (event) => seen.push(event));
    const r = await sh.run("echo evented");
    const snapshot = [...seen];
    const fired = snapshot.find((event) => event.type === "fired");
    const done = snapshot.find((event) => event.type === "done");
    expect(fired?.cellId).toBe(r.cellId);
    expect(done?.cellId).toBe(r.cellId);
    expect(done?.status).toBe("done");
    expect(done?.session).toBe(sh.name);
    expect(new Date(done?.ts as string).toISOString()).toBe(done?.ts);
  });

  it('"done" with status timeout is emitted before run() resolves', async () => {
    const sh = await spawnBash();
    const seen: SessionEvent[] = [];
    sh.on("cell", (event) => seen.push(event));
    const r = await sh.run("sleep 30", { timeoutMs: 200 });
    expect([...seen].find((event) => event.type === "done")).toMatchObject({ cellId: r.cellId, status: "timeout" });
    await sh.interrupt();
  });

  it("events() yields fired, done and notify, and ends when the session closes", async () => {
    const sh = await spawnBash();
    const collected: SessionEvent[] = [];
    const consumer = (async () => {
      for await (const event of sh.events()) collected.push(event);
    })();
    const r = await sh.run("echo x");
    sh.notify("hello watchers");
    await sh.close();
    await consumer;
    const types = collected.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(["fired", "done", "notify"]);
    expect(types).toContain("exit");
    expect(collected[1]).toMatchObject({ type: "done", cellId: r.cellId, status: "done" });
    expect(collected[2]).toMatchObject({ type: "notify", message: "hello watchers" });
  });

  it("output() streams the clean transcript and ends when the session closes", async () => {
    const sh = await spawnBash();
    let text = "";
    const consumer = (async () => {
      for await (const chunk of sh.output()) text += chunk;
    })();
    await sh.run("echo streamed-line");
    await sh.close();
    await consumer;
    expect(text).toContain("streamed-line");
    expect(text).not.toContain("\x1b");
  });
});
