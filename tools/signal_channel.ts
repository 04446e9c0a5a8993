/** `signal_channel`: wake everything waiting on a tmux `wait-for` channel. */

import { z } from "zod";
import { channelName } from "../domain/channel.ts";
import { changesTmux, defineTool } from "../core/registry.ts";

/** The signal_channel tool. */
export const signalChannel = defineTool({
  name: "signal_channel",
  title: "Signal channel",
  description: "Signals a tmux wait-for channel: its waiters go on; with none, tmux keeps the " +
    "signal for the next.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({ channel: channelName }),
  output: z.object({ channel: z.string() }),
  async handler(args, ctx) {
    // "--": a channel name may start with "-", which tmux would read as flags.
    await ctx.tmux.one(["wait-for", "-S", "--", args.channel], { signal: ctx.signal });
    return { channel: args.channel };
  },
  render: (r) => `signalled channel ${r.channel}`,
});
