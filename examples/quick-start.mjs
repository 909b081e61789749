// Quick start: a persistent bash, a python REPL, and a question answered mid-cell.
// Run with: npm install && npm run example
import { Session } from "agent-tty";

const sh = await Session.spawn(); // bash with shell integration
try {
  await sh.run("cd /tmp && export GREETING=hello");
  const r = await sh.run('echo "$GREETING from $(pwd)"; false');
  console.log(`bash   → ${JSON.stringify(r.output)} (exit ${r.exitCode}, cwd ${r.cwd}, ${r.durationMs} ms)`);

  const asked = await sh.run('read -p "Continue? [y/N] " answer; echo "you said $answer"', { untilInput: true });
  console.log(`bash   → ${asked.status}: ${JSON.stringify(asked.output)}`);
  if (asked.status === "awaiting_input") {
    sh.type("y\n");
    const done = await sh.wait();
    console.log(`bash   → ${done.status}: ${JSON.stringify(done.output)}`);
  }
} finally {
  await sh.close();
}

const py = await Session.spawn({ command: "python3" });
try {
  await py.run("def square(n):\n    return n * n\ntotal = sum(square(i) for i in range(10))");
  const r = await py.run("total");
  console.log(`python → ${r.output} (${r.decidedBy})`);
} finally {
  await py.close();
}
