// A byte count for people, in binary units (1 KiB = 1,024 bytes) with one decimal: the web UI and the reports
// both show sizes this way, so an image's size reads the same in the browser and in its PDF.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function byteSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
