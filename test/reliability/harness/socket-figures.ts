/**
 * What the fake Slack saw of Socket Mode during a scenario: envelopes sent, acked, sent again, acked twice (must
 * be none), dispatches that found no connection; and, for each disruption (a kill, a drop, a `disconnect`),
 * how long until the next ack — the time Slack's requests could not get an answer.
 */
import type { FakeSlack } from "../../../tools/fake-slack/index.ts";

export interface SocketFigures {
  envelopesSent: number;
  envelopesAcked: number;
  /** Sent again by Slack (`retry_attempt` > 0) after a missing or late ack. */
  envelopesRedelivered: number;
  envelopesAckedTwice: number;
  /** Commands and clicks Slack could not hand to any connection (the person saw an error and tried again). */
  dispatchFailed: number;
  connections: number;
}

export function socketFigures(fake: FakeSlack): SocketFigures {
  const envelopes = fake.socketMode.envelopes();
  return {
    envelopesSent: envelopes.length,
    envelopesAcked: envelopes.filter((e) => e.ack !== undefined).length,
    envelopesRedelivered: envelopes.filter((e) => e.retryAttempt > 0).length,
    envelopesAckedTwice: envelopes.filter((e) => e.acks > 1).length,
    dispatchFailed: fake.socketMode.undelivered().length,
    connections: fake.socketMode.connections().length,
  };
}

/** Milliseconds from each moment to the first in-time ack after it (null: none came). */
export function ackGaps(fake: FakeSlack, moments: readonly number[]): Array<number | null> {
  const acks = fake.socketMode
    .acks()
    .filter((a) => a.known && !a.late)
    .map((a) => a.at)
    .sort((a, b) => a - b);
  return moments.map((at) => {
    const next = acks.find((t) => t >= at);
    return next === undefined ? null : next - at;
  });
}

/** "min–median–max ms" of the gaps that ended. */
export function describeGaps(gaps: ReadonlyArray<number | null>): string {
  const done = gaps.filter((g): g is number => g !== null).sort((a, b) => a - b);
  if (done.length === 0) return "none measured";
  const median = done[Math.floor(done.length / 2)] as number;
  return `${done[0]}–${median}–${done.at(-1)} ms (min–median–max of ${done.length})`;
}

export function describeSocket(figures: SocketFigures): string {
  return (
    `Socket Mode: ${figures.envelopesSent} envelopes sent, ${figures.envelopesAcked} acked, ` +
    `${figures.envelopesRedelivered} sent again, ${figures.envelopesAckedTwice} acked twice; ` +
    `${figures.dispatchFailed} dispatches found no connection; ${figures.connections} connections opened`
  );
}
