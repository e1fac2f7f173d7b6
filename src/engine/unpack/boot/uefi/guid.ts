// EFI GUIDs: the mixed-endian text form (first three fields little-endian) and the names of the GUIDs the boot
// handlers act on, from the UEFI and PI specifications and EDK II.

/** 'XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX' (upper case, as UEFITool prints it) of the 16 bytes at `at`. */
export function guidString(buf: Buffer, at = 0): string {
  const hex = (from: number, to: number) => buf.subarray(at + from, at + to).toString('hex');
  const le = (from: number, to: number) => Buffer.from(buf.subarray(at + from, at + to)).reverse().toString('hex');
  return `${le(0, 4)}-${le(4, 6)}-${le(6, 8)}-${hex(8, 10)}-${hex(10, 16)}`.toUpperCase();
}

/** The 16 bytes of a GUID given in text form (the inverse of guidString). */
export function guidBytes(text: string): Buffer {
  const [a, b, c, d, e] = text.split('-') as [string, string, string, string, string];
  return Buffer.concat([
    Buffer.from(a, 'hex').reverse(),
    Buffer.from(b, 'hex').reverse(),
    Buffer.from(c, 'hex').reverse(),
    Buffer.from(d + e, 'hex'),
  ]);
}

export const GUIDS = {
  ffs2: '8C8CE578-8A3D-4F1C-9935-896185C32DD3',
  ffs3: '5473C07A-3DCB-4DCA-BD6F-1E9689E7349A',
  nvData: 'FFF12B8D-7696-4C8B-A985-2747075B4F50',
  lzma: 'EE4E5898-3914-4259-9D6E-DC7BD79403CF',
  lzmaF86: 'D42AE6BD-1352-4BFB-909A-CA72A6EAE889',
  tiano: 'A31280AD-481E-41B6-95E8-127F4C984779',
  brotli: '3D532050-5CDA-4FD0-879E-0F7F630D5AFB',
  crc32: 'FC1BCDB0-7D31-49AA-936A-A4600D9DD083',
  variableStore: 'DDCF3616-3275-4164-98B6-FE85707FFE7D',
  authVariableStore: 'AAF32C78-947B-439A-A180-2E144EC37792',
  globalVariable: '8BE4DF61-93CA-11D2-AA0D-00E098032B8C',
  imageSecurityDatabase: 'D719B2CB-3D3A-4596-A3BC-DAD00E67656F',
  certX509: 'A5C059A1-94E4-4AA7-87B5-AB155C2BF072',
  certSha256: 'C1C41626-504C-4092-ACA9-41F936934328',
  certSha1: '826CA512-CF10-4AC9-B187-BE01496631BD',
  certSha384: 'FF3E5307-9FD0-48C9-85F1-8AD56C701E01',
  certSha512: '093E0FAE-A6C4-4F50-9F1B-D41E2B89C19A',
  certSha224: '0B6E5233-A65C-44C9-9407-D9AB83BFC8BD',
  certRsa2048: '3C5766E8-269C-4E34-AA14-ED776E85B3B6',
  certX509Sha256: '3BD2A492-96C0-4079-B420-FCF98EF103ED',
  certX509Sha384: '7076876E-80C2-4EE6-AAD2-28B349A6865B',
  certX509Sha512: '446DBF63-2502-4CDA-BCFA-2465D2B0FE9D',
  certPkcs7: '4AAFD29D-68DF-49EE-8AA9-347D375665A7',
} as const;
