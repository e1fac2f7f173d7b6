// More C libraries: archives and compression, media codecs, security and identity, IoT protocols, language
// runtimes' libraries. A banner where the library has one; otherwise the bare version its version function returns,
// in the library's own file (hinted by name) next to its exported symbols. Each form was seen in a real build
// (see the samples' sources in the tests).
import type { VersionSignature } from '../signature.js';
import { adjacent, banner, family, standalone } from './helpers.js';

const library = (id: string, cpe: VersionSignature['cpe'], patterns: VersionSignature['patterns'], extra: Partial<VersionSignature> = {}): VersionSignature =>
  family('library', id, cpe, patterns, extra);

/** A library known only by its bare version string in its own file, next to its symbol prefix. */
const bare = (id: string, cpe: VersionSignature['cpe'], files: string[], marker: string, version: RegExp): VersionSignature =>
  library(id, cpe, [], { files, standalone: [standalone(marker, version)] });

export const moreLibrarySignatures: VersionSignature[] = [
  library('libarchive', { vendor: 'libarchive', product: 'libarchive' }, [banner('libarchive ', /\0libarchive (3\.\d+\.\d+)\0/, 0.9)]),
  library('libtiff', { vendor: 'libtiff', product: 'libtiff' }, [banner('LIBTIFF, Version ', /LIBTIFF, Version (\d+\.\d+\.\d+)\n/, 0.95)]),
  library('libsndfile', { vendor: 'libsndfile_project', product: 'libsndfile' }, [banner('libsndfile-', /\0libsndfile-(1\.\d+\.\d+)\0/, 0.9)]),
  library('flac', { vendor: 'flac_project', product: 'flac' }, [banner('reference libFLAC ', /reference libFLAC (1\.\d+\.\d+) \d{8}\0/, 0.95)]),
  library('libvorbis', { vendor: 'xiph', product: 'libvorbis' }, [banner('Xiph.Org libVorbis ', /\0Xiph\.Org libVorbis (1\.\d+\.\d+)\0/, 0.95)]),
  library('libsrtp', { vendor: 'cisco', product: 'libsrtp' }, [banner('libsrtp2 ', /\0libsrtp2? (\d+\.\d+\.\d+)\0/, 0.9)]),
  // 'KRB5_BRAND: krb5-1.20.1-final 1.20.1 20221111'
  library('krb5', { vendor: 'mit', product: 'kerberos_5' }, [banner('KRB5_BRAND: ', /KRB5_BRAND: krb5-(1\.\d+(?:\.\d+)?)-final /, 0.95)]),
  // '$Header: NSS 3.87.1 …' and 'Version: NSS 3.87.1' in libnss3, libssl3, libnssutil3.
  library('nss', { vendor: 'mozilla', product: 'nss' }, [banner('Version: NSS ', /Version: NSS (3\.\d+(?:\.\d+)?)\0/, 0.9)]),
  library('libcoap', { vendor: 'libcoap', product: 'libcoap' }, [banner('libcoap ', /\0libcoap (4\.\d+\.\d+)\0/, 0.9)]),
  library('libvncserver', { vendor: 'libvnc_project', product: 'libvncserver' }, [banner('LibVNCServer ', /\0LibVNCServer (0\.\d+\.\d+)\0/, 0.9)]),
  // '0.21.2 (+libidn2/2.3.3)' (psl_get_version()).
  library('libpsl', { vendor: 'libpsl_project', product: 'libpsl' }, [banner(' (+libidn', /\0(0\.\d+\.\d+) \(\+libidn2?\/\d+\.\d+\.\d+\)\0/, 0.9)]),
  library('glib', { vendor: 'gnome', product: 'glib' }, [banner('<!-- GDBus ', /<!-- GDBus (2\.\d+\.\d+) -->/, 0.9)]),
  library('libmagic', { vendor: 'file_project', product: 'file' }, [adjacent("bad magic in `%s'", '5\\.\\d+', 0.85)]),
  library('luajit', { vendor: 'luajit', product: 'luajit' }, [banner('LuaJIT ', /\0LuaJIT (2\.\d+\.\d+(?:-beta\d+)?)\0/, 0.9)]),
  library('tcl', { vendor: 'tcl_tk', product: 'tcl_tk' }, [adjacent('tcl_patchLevel', '8\\.\\d+\\.\\d+', 0.85)]),
  bare('liblzo', { vendor: 'oberhumer', product: 'lzo' }, ['liblzo2.so*'], 'lzo1x_', /^2\.\d+$/),
  bare('libyaml', { vendor: 'pyyaml', product: 'libyaml' }, ['libyaml*.so*'], 'yaml_parser_', /^0\.\d+\.\d+$/),
  bare('libmicrohttpd', { vendor: 'gnu', product: 'libmicrohttpd' }, ['libmicrohttpd.so*'], 'MHD_start_daemon', /^0\.9\.\d+$/),
  bare('speex', { vendor: 'xiph', product: 'speex' }, ['libspeex.so*'], 'speex_', /^1\.\d+(?:\.\d+)?$/),
  bare('alsa-lib', { vendor: 'alsa-project', product: 'alsa-lib' }, ['libasound.so*'], 'snd_pcm_open', /^1\.\d+\.\d+$/),
  bare('openjpeg', { vendor: 'uclouvain', product: 'openjpeg' }, ['libopenjp2.so*'], 'opj_', /^2\.\d+\.\d+$/),
  bare('libsodium', { vendor: 'libsodium_project', product: 'libsodium' }, ['libsodium.so*'], 'sodium_init', /^1\.0\.\d+$/),
  bare('protobuf-c', { vendor: 'protobuf-c_project', product: 'protobuf-c' }, ['libprotobuf-c.so*'], 'protobuf_c_', /^1\.\d+\.\d+$/),
  bare('libgd', { vendor: 'libgd', product: 'libgd' }, ['libgd.so*'], 'gdImage', /^2\.\d+\.\d+$/),
  bare('harfbuzz', { vendor: 'harfbuzz_project', product: 'harfbuzz' }, ['libharfbuzz.so*'], 'hb_buffer_', /^\d+\.\d+\.\d+$/),
  bare('libnfc', { vendor: 'libnfc_project', product: 'libnfc' }, ['libnfc.so*'], 'nfc_', /^1\.\d+\.\d+$/),
  // Databases and IPC.
  library('lmdb', undefined, [banner('LMDB ', /\0LMDB (0\.9\.\d+): \([A-Z][a-z]+ \d{1,2}, \d{4}\)\0/, 0.95)]),
  library('berkeley-db', { vendor: 'oracle', product: 'berkeley_db' }, [banner('Berkeley DB ', /Berkeley DB (\d+\.\d+\.\d+): \([A-Z][a-z]+ {1,2}\d{1,2}, \d{4}\)/, 0.95)]),
  library('gdbm', { vendor: 'gnu', product: 'gdbm' }, [banner('GDBM version ', /GDBM version (1\.\d+(?:\.\d+)?)\. \d{2}\/\d{2}\/\d{4}/, 0.95)]),
  library('libsoup', { vendor: 'gnome', product: 'libsoup' }, [banner('libsoup/', /\0libsoup\/([23]\.\d+\.\d+)\0/, 0.9)]),
  library('libcups', { vendor: 'openprinting', product: 'cups' }, [banner('CUPS/', /\0CUPS\/(2\.\d+\.\d+) IPP\/2\.[01]\0/, 0.9)], { name: 'cups' }),
  // Media codecs.
  library('opus', { vendor: 'opus-codec', product: 'opus' }, [banner('libopus ', /\0libopus (1\.\d+(?:\.\d+)?)(?:-[\w.]+)?\0/, 0.9)]),
  library('libvpx', { vendor: 'webmproject', product: 'libvpx' }, [banner('WebM Project VP', /\0WebM Project VP[89] (?:En|De)coder v(1\.\d+\.\d+)\0/, 0.95)]),
  library('lame', { vendor: 'lame_project', product: 'lame' }, [banner('LAME3', /\0LAME(3\.\d+(?:\.\d+)?) \0/, 0.85)]),
  bare('libev', undefined, ['libev.so*'], 'ev_loop', /^4\.\d+$/),
  bare('faad2', { vendor: 'audiocoding', product: 'freeware_advanced_audio_decoder_2' }, ['libfaad.so*', 'libfaad_drm.so*'], 'NeAACDec', /^2\.\d+\.\d+$/),
  // The core library keeps PACKAGE_VERSION before its plugin name: '../gst/gst.c\0001.22.0\0staticelements'.
  library('gstreamer', { vendor: 'gstreamer_project', product: 'gstreamer' }, [banner('staticelements', /\0(1\.\d+\.\d+)\0staticelements\0/, 0.85)]),
  bare('slang', undefined, ['libslang.so*'], 'SLang', /^2\.\d+\.\d+$/),
  bare('libserialport', undefined, ['libserialport.so*'], 'sp_get_port', /^0\.1\.\d+$/),
  bare('libftdi', undefined, ['libftdi1.so*'], 'ftdi_', /^1\.\d+$/),
  library('libcap', { vendor: 'libcap_project', product: 'libcap' }, [banner('shared library version: libcap-', /shared library version: libcap-(2\.\d+)\./, 0.95)]),
];
