/**
 * The channel-name argument of the wait-for channel tools.
 *
 * @module
 */

import { z } from "zod";
import { CHANNEL_NAME } from "../tmux/wait_for.ts";

/** A tmux wait-for channel name: 1-128 of letters, digits and `_.:-`. */
export const channelName = z.string().regex(CHANNEL_NAME, {
  error: "must be 1 to 128 characters from A-Z, a-z, 0-9, _ . : -",
});
