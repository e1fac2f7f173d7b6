// Extended attributes as they are kept on a FileNode: meta.xattrs maps each name to its value, as text when the value
// is printable UTF-8 (an SELinux label's trailing NUL dropped) and otherwise as 'base64:' + its bytes in base64
// (security.capability, ACLs, IMA/EVM signatures). File capabilities are also given as getcap(8) prints them
// (meta.capabilities, e.g. 'cap_net_bind_service,cap_net_raw=ep'). In UBIFS an attribute is an extended-attribute
// entry under its host inode naming an xattr inode whose data is the value (Linux fs/ubifs/xattr.c); JFFS2 uses this
// module too (jffs2/xattrs.ts).

/** Printable text: tab, newline, carriage return and no other control characters. */
const PRINTABLE = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/u;

export function xattrValue(value: Buffer): string {
  const body = value.length > 0 && value[value.length - 1] === 0 ? value.subarray(0, -1) : value;
  const text = body.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(body) && PRINTABLE.test(text) && !text.startsWith('base64:')) return text;
  return `base64:${value.toString('base64')}`;
}

/** Linux capability numbers (include/uapi/linux/capability.h), 0 to 40. */
const CAPABILITIES = [
  'chown', 'dac_override', 'dac_read_search', 'fowner', 'fsetid', 'kill', 'setgid', 'setuid', 'setpcap', 'linux_immutable',
  'net_bind_service', 'net_broadcast', 'net_admin', 'net_raw', 'ipc_lock', 'ipc_owner', 'sys_module', 'sys_rawio', 'sys_chroot',
  'sys_ptrace', 'sys_pacct', 'sys_admin', 'sys_boot', 'sys_nice', 'sys_resource', 'sys_time', 'sys_tty_config', 'mknod', 'lease',
  'audit_write', 'audit_control', 'setfcap', 'mac_override', 'mac_admin', 'syslog', 'wake_alarm', 'block_suspend', 'audit_read',
  'perfmon', 'bpf', 'checkpoint_restore',
];

/**
 * A security.capability value (struct vfs_cap_data: magic and flags, then permitted/inheritable pairs of 32-bit words,
 * one pair in revision 1, two in revisions 2 and 3) in getcap's form, or undefined when it is not one.
 */
export function capabilityText(value: Buffer): string | undefined {
  if (value.length < 12) return undefined;
  const magic = value.readUInt32LE(0);
  const revision = magic >>> 24;
  const words = revision === 1 ? 1 : revision === 2 || revision === 3 ? 2 : 0;
  if (words === 0 || value.length < 4 + 8 * words) return undefined;
  const names = (offset: number) => {
    const out: string[] = [];
    for (let w = 0; w < words; w++) {
      const bits = value.readUInt32LE(4 + 8 * w + offset);
      for (let b = 0; b < 32; b++) if (bits & (1 << b)) out.push(CAPABILITIES[w * 32 + b] ? `cap_${CAPABILITIES[w * 32 + b]}` : `cap_${w * 32 + b}`);
    }
    return out;
  };
  const permitted = names(0);
  const inheritable = names(4);
  const effective = (magic & 1) === 1;
  const clauses: string[] = [];
  const both = permitted.filter((c) => inheritable.includes(c));
  const group = (caps: string[], flags: string) => caps.length > 0 && clauses.push(`${caps.sort().join(',')}=${flags}`);
  group(both, effective ? 'eip' : 'ip');
  group(permitted.filter((c) => !both.includes(c)), effective ? 'ep' : 'p');
  group(inheritable.filter((c) => !both.includes(c)), effective ? 'ei' : 'i');
  return clauses.join(' ') || '=';
}

/**
 * The FileNode meta for a file's attributes (name → value pairs): { xattrs } plus { capabilities } when it has a
 * readable security.capability; undefined when there are none.
 */
export function xattrMeta(values: Iterable<[string, Buffer]>): Record<string, unknown> | undefined {
  const xattrs: Record<string, string> = {};
  let capabilities: string | undefined;
  let any = false;
  for (const [name, value] of values) {
    xattrs[name] = xattrValue(value);
    if (name === 'security.capability') capabilities = capabilityText(value);
    any = true;
  }
  if (!any) return undefined;
  return capabilities === undefined ? { xattrs } : { xattrs, capabilities };
}
