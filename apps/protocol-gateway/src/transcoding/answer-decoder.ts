import { BufferReader, Message, Type } from 'protobufjs';

/**
 * protobufjs 8 rejects a proto3 string that is not valid UTF-8 (the `utf8_validation` feature, VERIFY in proto3),
 * so one such string would fail the whole answer. A Cosmos node's own REST gateway prints it, each invalid byte as
 * U+FFFD (Go's encoding/json), and gogoproto sends it as stored; the gateway prints what the node's REST would.
 * Every string goes through the lenient reader instead (nested messages are read by the same reader).
 */
class NodeLikeReader extends BufferReader {
  override stringVerify(): string {
    return this.string();
  }
}

/** Decodes an upstream answer (or an Any's value) as the node's REST gateway reads it: see NodeLikeReader. */
export function decodeAnswer(type: Type, bytes: Uint8Array): Message {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return type.decode(new NodeLikeReader(buffer));
}
