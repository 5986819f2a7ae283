/**
 * The archive code (zip reading and writing, path selection) loaded on first use: most jobs
 * have no cache and no artifacts, and an idle runner need not carry yauzl and yazl.
 */
export async function archive() {
  const [collect, readZip, write, select] = await Promise.all([import('./collect.ts'), import('./read-zip.ts'), import('./write.ts'), import('./select.ts')]);
  return { collect: collect.collect, unarchivableLine: collect.unarchivableLine, zipAsTar: readZip.zipAsTar, writeZip: write.writeZip, writeGzipMembers: write.writeGzipMembers, writeRaw: write.writeRaw, matchReport: select.matchReport };
}
