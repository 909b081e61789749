import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../../src/index.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { startRedis, type PrivateRedis } from "../helpers/redis.js";

// A real redis-server on a free loopback port, persisting nothing, private to this file.
let server: PrivateRedis | undefined;
let startError: unknown;
beforeAll(async () => {
  try {
    server = await startRedis();
  } catch (error) {
    startError = error;
  }
});
afterAll(async () => {
  await server?.stop();
});

// redis-cli writes no history file (~/.rediscli_history) for these sessions.
const CLIENT_ENV = { REDISCLI_HISTFILE: "/dev/null" };

/** The private server: each test that needs it fails (not skips) when it did not start. */
const need = (): PrivateRedis => {
  if (server === undefined) throw startError ?? new Error("the private redis-server did not start");
  return server;
};

const port = (): number => {
  return need().port;
};

const redisCli = (): Promise<Session> =>
  // A cell whose prompt went unrecognised would end as "timeout", not "done".
  spawnSession({ command: "redis-cli", args: ["-p", String(port())], env: CLIENT_ENV, timeoutMs: 15_000 });

/** The prompt redis-cli shows now (the last line on its screen). */
const promptOf = async (cli: Session): Promise<string> => (await cli.screen()).trimEnd().split("\n").pop() ?? "";

describe("redis-cli against a real redis-server", () => {
  it('"auto" picks the prompt detector: SET and GET answer the replies alone', async () => {
    const cli = await redisCli();
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}>`);
    const set = await cli.run("SET greeting hello");
    expect(set).toMatchObject({ status: "done", decidedBy: "prompt", output: "OK" });
    expect((await cli.run("GET greeting")).output).toBe('"hello"');
    expect((await cli.run("RPUSH letters a b")).output).toBe("(integer) 2");
    expect((await cli.run("LRANGE letters 0 -1")).output).toBe('1) "a"\n2) "b"');
    await cli.run("DEL greeting letters");
  });

  it("SELECT 2 puts the database in the prompt (`[2]`); its keys are its own; SELECT 0 takes it away", async () => {
    const cli = await redisCli();
    await cli.run("SET where zero");
    expect((await cli.run("SELECT 2")).output).toBe("OK");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}[2]>`);
    expect((await cli.run("GET where")).output).toBe("(nil)");
    expect((await cli.run("SET where two")).output).toBe("OK");
    expect((await cli.run("SELECT 0")).output).toBe("OK");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}>`);
    expect((await cli.run("GET where")).output).toBe('"zero"');
    await cli.run("DEL where");
    await cli.run("SELECT 2\nDEL where");
  });

  it("MULTI shows `(TX)` (beside the database's `[2]`), commands answer QUEUED, EXEC answers them all", async () => {
    const cli = await redisCli();
    await cli.run("SELECT 2");
    expect((await cli.run("MULTI")).output).toBe("OK");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}[2](TX)>`);
    expect((await cli.run("SET counter 1")).output).toBe("QUEUED");
    expect((await cli.run("INCR counter")).output).toBe("QUEUED");
    expect((await cli.run("EXEC")).output).toBe("1) OK\n2) (integer) 2");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}[2]>`);
    expect((await cli.run("GET counter")).output).toBe('"2"');
    await cli.run("DEL counter");
  });

  it("DISCARD drops a transaction, and an error queued in one makes EXEC abort it", async () => {
    const cli = await redisCli();
    await cli.run("MULTI");
    await cli.run("SET dropped 1");
    expect((await cli.run("DISCARD")).output).toBe("OK");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}>`);
    expect((await cli.run("EXISTS dropped")).output).toBe("(integer) 0");
    await cli.run("MULTI");
    expect((await cli.run("SET only-a-key")).output).toBe("(error) ERR wrong number of arguments for 'set' command");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}(TX)>`);
    expect((await cli.run("EXEC")).output).toBe("(error) EXECABORT Transaction discarded because of previous errors.");
    expect(await promptOf(cli)).toBe(`127.0.0.1:${port()}>`);
  });

  it("an error reply is the cell's output and the next cell is clean", async () => {
    const cli = await redisCli();
    await cli.run("SET text hello");
    const r = await cli.run("INCR text");
    expect(r).toMatchObject({ status: "done", decidedBy: "prompt", output: "(error) ERR value is not an integer or out of range" });
    expect((await cli.run("NOSUCHCOMMAND")).output).toMatch(/^\(error\) ERR unknown command 'NOSUCHCOMMAND'/);
    expect((await cli.run("GET text")).output).toBe('"hello"');
    await cli.run("DEL text");
  });

  it("a cell of several lines runs one command per prompt and answers each in order", async () => {
    const cli = await redisCli();
    const r = await cli.run("SET n 1\nINCR n\nINCRBY n 40\nGET n");
    expect(r).toMatchObject({ status: "done", output: 'OK\n(integer) 2\n(integer) 42\n"42"' });
    await cli.run("DEL n");
  });

  it("over a Unix socket the prompt is `redis <socket>> `, with `[n]` from -n and `(TX)` in MULTI", async () => {
    const { socket } = need();
    const cli = await spawnSession({ command: "redis-cli", args: ["-s", socket, "-n", "4"], env: CLIENT_ENV, timeoutMs: 15_000 });
    expect(await promptOf(cli)).toBe(`redis ${socket}[4]>`);
    expect(await cli.run("SET sock 1")).toMatchObject({ status: "done", decidedBy: "prompt", output: "OK" });
    await cli.run("MULTI");
    expect(await promptOf(cli)).toBe(`redis ${socket}[4](TX)>`);
    expect((await cli.run("GET sock")).output).toBe("QUEUED");
    expect((await cli.run("EXEC")).output).toBe('1) "1"');
    await cli.run("DEL sock");
  });

  it("without a server, the prompt is `not connected> ` and a cell answers the connection error", async () => {
    // Port 1 on loopback: nobody listens there (privileged, and never a test server's).
    const cli = await spawnSession({ command: "redis-cli", args: ["-p", "1"], env: CLIENT_ENV, timeoutMs: 15_000 });
    expect(await promptOf(cli)).toBe("not connected>");
    const r = await cli.run("PING");
    expect(r).toMatchObject({ status: "done", decidedBy: "prompt" });
    expect(r.output).toBe("Could not connect to Redis at 127.0.0.1:1: Connection refused");
    expect(await promptOf(cli)).toBe("not connected>");
  });

  it("started from a bash cell: its cells, SELECT's prompt and QUIT back to bash", async () => {
    const sh = await spawnBash({ timeoutMs: 15_000, env: CLIENT_ENV });
    const enter = await sh.run(`redis-cli -p ${port()}`);
    expect(enter.nested?.entered?.name).toBe("redis-cli");
    expect((await sh.run("SELECT 3")).output).toBe("OK");
    expect((await sh.run("SET nested yes\nGET nested")).output).toBe('OK\n"yes"');
    await sh.run("DEL nested");
    const left = await sh.run("QUIT");
    expect(left.nested?.left?.[0]).toMatchObject({ name: "redis-cli", reason: "exit" });
    expect((await sh.run("echo back")).output).toBe("back");
  });
});
