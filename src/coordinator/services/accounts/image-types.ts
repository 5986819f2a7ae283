/** The image formats GitLab accepts as avatars, in its order (its message lists them so). */
export const AVATAR_FORMATS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'] as const;

export interface ImageType {
  /** The extension a kept file gets when its name has none of this type's. */
  extension: string;
  /** Every extension a name of this type may end with. */
  extensions: readonly string[];
  contentType: string;
}

const TYPES: { type: ImageType; matches: (head: Buffer) => boolean }[] = [
  { type: { extension: 'png', extensions: ['png'], contentType: 'image/png' }, matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: { extension: 'jpg', extensions: ['jpg', 'jpeg'], contentType: 'image/jpeg' }, matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { type: { extension: 'gif', extensions: ['gif'], contentType: 'image/gif' }, matches: (h) => ascii(h, 0, 'GIF87a') || ascii(h, 0, 'GIF89a') },
  { type: { extension: 'bmp', extensions: ['bmp'], contentType: 'image/bmp' }, matches: (h) => ascii(h, 0, 'BM') && h.length >= 14 },
  { type: { extension: 'tiff', extensions: ['tiff', 'tif'], contentType: 'image/tiff' }, matches: (h) => startsWith(h, [0x49, 0x49, 0x2a, 0x00]) || startsWith(h, [0x4d, 0x4d, 0x00, 0x2a]) },
  { type: { extension: 'ico', extensions: ['ico'], contentType: 'image/vnd.microsoft.icon' }, matches: (h) => startsWith(h, [0x00, 0x00, 0x01, 0x00]) && h.length >= 6 },
  { type: { extension: 'webp', extensions: ['webp'], contentType: 'image/webp' }, matches: (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP') },
];

/** How many leading bytes `imageTypeOf` needs. */
export const IMAGE_HEAD_LENGTH = 16;

/** The image type a file's first bytes show, whatever its name says; undefined for anything else. */
export function imageTypeOf(head: Buffer): ImageType | undefined {
  return TYPES.find((candidate) => candidate.matches(head))?.type;
}

/** The content type to serve an image kept under `fileName` with (its extension was set from its content). */
export function imageContentType(fileName: string): string | undefined {
  const extension = fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
  return TYPES.find((candidate) => candidate.type.extensions.includes(extension))?.type.contentType;
}

function startsWith(head: Buffer, bytes: readonly number[]): boolean {
  return head.length >= bytes.length && bytes.every((byte, index) => head[index] === byte);
}

function ascii(head: Buffer, offset: number, text: string): boolean {
  return head.length >= offset + text.length && head.toString('latin1', offset, offset + text.length) === text;
}
