/**
 * The opaque `capture_since` cursor: what the server remembers about a pane
 * between two calls, signed so that only this server process can have made
 * it. Layout and why: docs/decisions/007-cursor-format.md.
 *
 * @module
 */

import { ToolError } from "../core/errors.ts";

/** What a cursor remembers: rows `[base, base + hashes.length)` of the pane, as absolute line numbers. */
export interface CursorState {
  /** The pane, e.g. `%3`. */
  paneId: string;
  /** The pane's process when the cursor was made (a respawn changes it). */
  pid: number;
  /** The pane's width (a width change re-wraps rows; a height change moves none). */
  width: number;
  /** Absolute line number of the first remembered row. */
  base: number;
  /** Absolute line number of the top visible row (rows above it were history). */
  top: number;
  /** Absolute line number of the cursor's row: rows from here may still change. */
  open: number;
  /** Length (UTF-16 units) of the cursor's row's text: typing onto it keeps it as a prefix. */
  openLength: number;
  /** Hash of each remembered row ({@link rowHash}). */
  hashes: number[];
}

const VERSION = 2;
const INSTANCE_BYTES = 8;
const MAC_BYTES = 16;
const HEADER_BYTES = 1 + INSTANCE_BYTES + 4 + 4 + 2 + 4 + 4 + 4 + 2 + 2;
/** The most rows a cursor remembers (a screen taller than this is remembered by its top rows). */
export const MAX_CURSOR_ROWS = 1024;

const instance = crypto.getRandomValues(new Uint8Array(INSTANCE_BYTES));
let key: Promise<CryptoKey> | undefined;

function macKey(): Promise<CryptoKey> {
  key ??= crypto.subtle.importKey(
    "raw",
    crypto.getRandomValues(new Uint8Array(32)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
  return key;
}

async function mac(body: Uint8Array): Promise<Uint8Array> {
  const full = await crypto.subtle.sign("HMAC", await macKey(), body as Uint8Array<ArrayBuffer>);
  return new Uint8Array(full, 0, MAC_BYTES);
}

/** A 32-bit FNV-1a hash of a row's text (UTF-16 code units). */
export function rowHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * True when `row` still starts with the text of `length` UTF-16 units whose
 * {@link rowHash} is `hash`: typing onto a cursor's row keeps what it held.
 */
export function keepsPrefix(row: string | undefined, length: number, hash: number): boolean {
  return row !== undefined && row.length >= length && rowHash(row.slice(0, length)) === hash;
}

/** Encodes and signs `state` into the opaque cursor string. */
export async function encodeCursor(state: CursorState): Promise<string> {
  const count = Math.min(state.hashes.length, MAX_CURSOR_ROWS);
  const body = new Uint8Array(HEADER_BYTES + count * 4);
  const view = new DataView(body.buffer);
  let at = 0;
  view.setUint8(at, VERSION);
  at += 1;
  body.set(instance, at);
  at += INSTANCE_BYTES;
  view.setUint32(at, Number(state.paneId.slice(1)));
  view.setUint32(at + 4, state.pid);
  view.setUint16(at + 8, Math.min(state.width, 0xffff));
  view.setUint32(at + 10, state.base);
  view.setUint32(at + 14, state.top);
  view.setUint32(at + 18, state.open);
  view.setUint16(at + 22, Math.min(state.openLength, 0xffff));
  view.setUint16(at + 24, count);
  at += 26;
  for (let i = 0; i < count; i++) view.setUint32(at + i * 4, state.hashes[i]);
  const signature = await mac(body);
  const all = new Uint8Array(body.length + MAC_BYTES);
  all.set(body);
  all.set(signature, body.length);
  return toBase64Url(all);
}

function malformed(): ToolError {
  return new ToolError(
    "the cursor is not one this server issued (it is malformed)",
    "Pass the cursor exactly as the previous capture_since returned it, or omit it to start again from the visible screen.",
  );
}

function foreign(): ToolError {
  return new ToolError(
    "the cursor was issued by another server process (cursors do not survive a restart of this server)",
    "Call capture_since without a cursor to start again from the visible screen.",
  );
}

/**
 * Verifies and decodes a cursor string. Throws a ToolError saying whether it
 * is malformed, from another server process, or altered; never echoes it.
 */
export async function decodeCursor(text: string): Promise<CursorState> {
  const all = fromBase64Url(text);
  // Only an older server process can have issued an older version, whatever
  // its length; a newer or unknown one is no cursor of ours.
  if (all && all.length > 0 && all[0] >= 1 && all[0] < VERSION) throw foreign();
  if (!all || all.length < HEADER_BYTES + MAC_BYTES || all[0] !== VERSION) throw malformed();
  const body = all.subarray(0, all.length - MAC_BYTES);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (!sameBytes(body.subarray(1, 1 + INSTANCE_BYTES), instance)) {
    throw foreign();
  }
  const signature = await mac(body);
  if (!sameBytes(all.subarray(all.length - MAC_BYTES), signature)) {
    throw new ToolError(
      "the cursor was altered (its signature does not match)",
      "Pass the cursor exactly as the previous capture_since returned it, or omit it to start again.",
    );
  }
  const at = 1 + INSTANCE_BYTES;
  const count = view.getUint16(at + 24);
  if (body.length !== HEADER_BYTES + count * 4) throw malformed();
  const hashes: number[] = [];
  for (let i = 0; i < count; i++) hashes.push(view.getUint32(HEADER_BYTES + i * 4));
  return {
    paneId: `%${view.getUint32(at)}`,
    pid: view.getUint32(at + 4),
    width: view.getUint16(at + 8),
    base: view.getUint32(at + 10),
    top: view.getUint32(at + 14),
    open: view.getUint32(at + 18),
    openLength: view.getUint16(at + 22),
    hashes,
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** `bytes` in base64url without padding, the alphabet of every cursor this server gives. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The bytes of a base64url text, or undefined when it is not one. */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") +
    "=".repeat((4 - (text.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}
