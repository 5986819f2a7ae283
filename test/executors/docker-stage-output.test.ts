/** The docker executor's reading of a stage container's attach stream: the output in order, the status line its shell prints taken out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StageOutputReader, statusToken, statusTrap } from '../../src/executors/docker/stage-output.ts';

/** Docker's multiplexed frame: stream 1 (stdout) or 2 (stderr), the payload's length, the payload. */
function frame(payload: string, stream = 1): Buffer {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(Buffer.byteLength(payload), 4);
  return Buffer.concat([header, Buffer.from(payload)]);
}

/** Feeds `bytes` in pieces of `size` bytes; answers the output and the status read. */
function read(token: string | null, bytes: Buffer, size: number): { output: string; status: number | null } {
  const chunks: Buffer[] = [];
  const reader = new StageOutputReader(token, (chunk) => chunks.push(Buffer.from(chunk)));
  for (let offset = 0; offset < bytes.length; offset += size) reader.push(bytes.subarray(offset, offset + size));
  reader.end();
  return { output: Buffer.concat(chunks).toString(), status: reader.status };
}

describe('docker stage output', () => {
  const token = statusToken();

  it('takes the status line out of the output, however the stream is cut', () => {
    const stream = Buffer.concat([frame('one\n'), frame('two, no newline', 2), frame(`${token} 3\n`)]);
    for (const size of [1, 2, 7, 8, 9, 31, 64, stream.length]) {
      assert.deepEqual(read(token, stream, size), { output: 'one\ntwo, no newline', status: 3 }, `pieces of ${size} bytes`);
    }
  });

  it('keeps output that only looks like the start of the token, and output after the status line', () => {
    const stream = Buffer.concat([frame(`x ${token.slice(0, 10)}`), frame(' y\n'), frame(`${token} 0\nlate\n`)]);
    for (const size of [1, 5, stream.length]) {
      assert.deepEqual(read(token, stream, size), { output: `x ${token.slice(0, 10)} y\nlate\n`, status: 0 }, `pieces of ${size} bytes`);
    }
  });

  it('answers no status when the line is missing, cut short or not a status, and loses no output', () => {
    for (const tail of ['', `${token} 1`, `${token} \n`, `${token} 12345\n`, `${token} x\n`, `${statusToken()} 2\n`]) {
      const stream = Buffer.concat([frame('out\n'), frame(tail)]);
      for (const size of [1, stream.length]) {
        assert.deepEqual(read(token, stream, size), { output: `out\n${tail}`, status: null }, JSON.stringify(tail));
      }
    }
  });

  it('without a token (the shell prints no status), passes the output as it came', () => {
    const stream = Buffer.concat([frame('a b '), frame(`${token} 0\n`, 2)]);
    assert.deepEqual(read(null, stream, 3), { output: `a b ${token} 0\n`, status: null });
  });

  it('prints the token in two halves, so a trace of the trap would not hold it', () => {
    const trap = statusTrap(token);
    assert.ok(!trap.includes(token));
    assert.match(trap, /^trap '\{ printf "%s%s %d\\n" \S+ \S+ "\$\?"; \} 2>\/dev\/null' EXIT$/);
  });
});
