/**
 * The job log's masking of what no variable names, as gitlab-runner's trace buffer does before
 * it masks the masked variables' values: the values of credential URL parameters
 * (`?private_token=…`, `&X-Amz-Signature=…`) and tokens by their prefix (`glpat-…`, and the
 * payload's `features.token_mask_prefixes`), the prefix kept: `glpat-[MASKED]`.
 *
 * Byte by byte, so that a value split across writes is masked whole: the bytes of a value
 * are dropped as they come and `[MASKED]` is written where the value ends. Nothing is held
 * back but the first bytes of a possible token prefix.
 */
const MASK = Buffer.from('[MASKED]');

/** URL parameters whose values gitlab-runner masks (names compared case-insensitively). */
const SECRET_PARAMS = new Set(['private_token', 'authenticity_token', 'rss_token', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token']);
const LONGEST_PARAM = Math.max(...[...SECRET_PARAMS].map((name) => name.length));

/** gitlab-runner masks personal access tokens whatever the payload says. */
const DEFAULT_PREFIX = 'glpat-';
/** gitlab-runner takes at most this many prefixes (the default one included). */
const MAX_PREFIXES = 10;

const QUESTION = 0x3f;
const AMPERSAND = 0x26;
const EQUALS = 0x3d;

/** The end of a parameter's value: `?`, `&`, white space or a control character (ESC too). */
const endsParameter = (byte: number): boolean => byte === QUESTION || byte === AMPERSAND || byte <= 0x20 || byte === 0x7f;

/** The characters of a token after its prefix: letters, digits, `-`, `.`, `_` and `=`. */
const inToken = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d || byte === 0x2e || byte === 0x5f || byte === EQUALS;

interface Stage {
  write(bytes: Buffer, out: Buffer[]): void;
  flush(out: Buffer[]): void;
}

/** `?name=` or `&name=` with a credential name: the value is dropped and `[MASKED]` written at its end. */
class UrlParameterStage implements Stage {
  /** The parameter name read so far, after its `?` or `&`; null when none is being read. */
  private name: number[] | null = null;
  private masking = false;

  write(bytes: Buffer, out: Buffer[]): void {
    let index = 0;
    let kept = 0;
    while (index < bytes.length) {
      const byte = bytes[index]!;
      if (this.masking) {
        if (!endsParameter(byte)) {
          index++;
          kept = index;
          continue;
        }
        this.masking = false;
        out.push(MASK);
      }
      if (this.name === null && byte !== QUESTION && byte !== AMPERSAND) {
        // Nothing to look at before the next parameter.
        const next = nextParameter(bytes, index);
        index = next < 0 ? bytes.length : next;
        continue;
      }
      index++;
      if (byte === QUESTION || byte === AMPERSAND) {
        this.name = [];
      } else if (this.name !== null) {
        if (byte === EQUALS) {
          this.masking = SECRET_PARAMS.has(Buffer.from(this.name).toString('latin1').toLowerCase());
          this.name = null;
          if (this.masking) {
            out.push(bytes.subarray(kept, index));
            kept = index;
          }
        } else if (this.name.length >= LONGEST_PARAM) {
          this.name = null;
        } else {
          this.name.push(byte);
        }
      }
    }
    out.push(bytes.subarray(kept, index));
  }

  flush(out: Buffer[]): void {
    if (this.masking) out.push(MASK);
    this.masking = false;
    this.name = null;
  }
}

function nextParameter(bytes: Buffer, from: number): number {
  const question = bytes.indexOf(QUESTION, from);
  const ampersand = bytes.indexOf(AMPERSAND, from);
  if (question < 0) return ampersand;
  return ampersand < 0 ? question : Math.min(question, ampersand);
}

/** `<prefix><token characters>`: the prefix is kept, the token replaced by `[MASKED]`. */
class TokenPrefixStage implements Stage {
  private matched = 0;
  private masked = false;

  constructor(private readonly prefix: Buffer) {}

  write(bytes: Buffer, out: Buffer[]): void {
    const { prefix } = this;
    let index = 0;
    let kept = 0;
    while (index < bytes.length) {
      const byte = bytes[index]!;
      if (this.matched === prefix.length) {
        if (inToken(byte)) {
          this.masked = true;
          index++;
          kept = index;
          continue;
        }
        if (this.masked) out.push(MASK);
        this.masked = false;
        this.matched = 0;
      }
      if (this.matched === 0) {
        const start = bytes.indexOf(prefix[0]!, index);
        if (start < 0) break;
        index = start;
      }
      if (bytes[index] === prefix[this.matched]) {
        // The bytes before the match go out; the prefix is held until it is whole.
        if (this.matched === 0) out.push(bytes.subarray(kept, index));
        this.matched++;
        index++;
        kept = index;
        if (this.matched === prefix.length) out.push(prefix);
        continue;
      }
      // A partial prefix that did not go on: its bytes go out as they were.
      out.push(prefix.subarray(0, this.matched));
      this.matched = 0;
      kept = index;
    }
    if (this.matched === 0 || this.matched === prefix.length) out.push(bytes.subarray(kept));
  }

  flush(out: Buffer[]): void {
    if (this.masked) out.push(MASK);
    else if (this.matched < this.prefix.length) out.push(this.prefix.subarray(0, this.matched));
    this.masked = false;
    this.matched = 0;
  }
}

export class PatternMasker {
  private readonly stages: Stage[];

  /** `prefixes`: the payload's `features.token_mask_prefixes`. */
  constructor(prefixes: readonly string[] = []) {
    const unique = [...new Set([...prefixes, DEFAULT_PREFIX].map((prefix) => prefix.trim()).filter(Boolean))];
    // gitlab-runner keeps the shortest ten; the longest prefix looks first.
    const kept = unique.sort((a, b) => a.length - b.length).slice(0, MAX_PREFIXES).reverse();
    this.stages = [new UrlParameterStage(), ...kept.map((prefix) => new TokenPrefixStage(Buffer.from(prefix)))];
  }

  write(chunk: Buffer): Buffer {
    return this.run((stage, input, out) => stage.write(input, out), chunk);
  }

  /** Ends what is being masked or held (the stream ended or paused). */
  flush(): Buffer {
    return this.run((stage, input, out) => {
      stage.write(input, out);
      stage.flush(out);
    }, Buffer.alloc(0));
  }

  private run(step: (stage: Stage, input: Buffer, out: Buffer[]) => void, chunk: Buffer): Buffer {
    let data = chunk;
    for (const stage of this.stages) {
      const out: Buffer[] = [];
      step(stage, data, out);
      data = out.length === 1 ? out[0]! : Buffer.concat(out);
    }
    return data;
  }
}
