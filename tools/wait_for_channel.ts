/** `wait_for_channel`: block until a tmux `wait-for` channel is signalled. */

import { z } from "zod";
import { channelName } from "../domain/channel.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { timeoutSeconds } from "../core/schemas.ts";
import { waitForChannel } from "../tmux/wait_for.ts";

/** The wait_for_channel tool. */
export const waitForChannelTool = defineTool({
  name: "wait_for_channel",
  title: "Wait for channel",
  description:
    "Waits until a tmux wait-for channel is signalled (signal_channel, or `tmux wait-for " +
    "-S NAME` in a script); a signal sent earlier ends it at once. After a timed-out " +
    "wait, signal twice or use a new name.",
  capability: { ...readsMetadata(), toolset: "manage" },
  input: z.strictObject({ channel: channelName, timeoutSeconds }),
  output: z.object({
    channel: z.string(),
    signalled: z.boolean(),
    timedOut: z.boolean(),
    elapsedSeconds: z.number(),
    effectiveTimeoutSeconds: z.number(),
  }),
  async handler(args, ctx) {
    const ceiling = ctx.settings.waitMaxSeconds;
    const effective = Math.min(args.timeoutSeconds ?? ceiling, ceiling);
    const began = performance.now();
    const state = await waitForChannel(ctx.tmux, args.channel, {
      timeoutMs: effective * 1000,
      signal: ctx.signal,
    });
    return {
      channel: args.channel,
      signalled: state === "signalled",
      timedOut: state === "timeout",
      elapsedSeconds: Math.round(performance.now() - began) / 1000,
      effectiveTimeoutSeconds: effective,
    };
  },
  render: (r) =>
    `channel ${r.channel}: ${
      r.signalled ? "signalled" : "timed out"
    } after ${r.elapsedSeconds} s ` +
    `(timeout ${r.effectiveTimeoutSeconds} s)`,
});
