// Firmware implants and UEFI threats, by the indicators their public analyses publish: module names, FFS file
// GUIDs, dropped file names, C2 domains, and file hashes. Every indicator here was checked against the source
// in the rule's `reference`/`reference2` meta. UEFI firmware volumes keep module names (UI sections) in UTF-16
// and file GUIDs as 16 bytes in the FFS file header, so those are found in a volume's bytes, not in the
// extracted PE body. Written for Firmscope; conditions are our own.
//
// Hash rules: where a report publishes only MD5 or SHA-1 values, a rule compares the file's hash. The hash is
// only computed when the cheap guard before it holds (PE/TE magic, size bound): YARA-X evaluates `and` left to
// right and stops at the first false term, so a file that is not an executable costs nothing. Published
// SHA-256 values go to known-bad-sha256.txt instead (the engine already hashes every file with SHA-256).
// `sample = "hash-only"`: no sample can be built for such a rule (rules.test.ts checks the condition is a hash).
//
// Code patterns: for CosmicStrand and MoonBounce the public indicators of content are instruction sequences of
// their hooks, published with disassembly by Binarly's FwHunt rules (CC0) after Kaspersky's reports; the rules
// below match those byte sequences in a PE/TE image (the hooks live in patched CSMCORE and CORE_DXE drivers).
import "hash"

rule lojax_secdxe_module
{
  meta:
    family = "lojax"
    severity = "critical"
    description = "LoJax (Sednit) UEFI rootkit: the SecDxe DXE driver, by its FFS file GUID and UI name in a firmware volume"
    reference = "https://github.com/chipsec/chipsec/blob/1f53481fc990729b86938f30eca74c0c94d15025/chipsec/modules/tools/uefi/blockedlist.json"
    reference2 = "https://github.com/eset/malware-ioc/blob/master/sednit/lojax.adoc"
  strings:
    // 682894B5-6B70-4EBA-9E90-A607E5676297, the SecDxe file GUID, as it is stored (little-endian fields)
    $guid = { B5 94 28 68 70 6B BA 4E 9E 90 A6 07 E5 67 62 97 }
    $name = "SecDxe" wide
  condition:
    $guid and $name
}

rule lojax_small_agent
{
  meta:
    family = "lojax"
    severity = "critical"
    description = "LoJax small agent: the LoJack rpcnetp agent re-pointed at Sednit command servers"
    reference = "https://github.com/eset/malware-ioc/blob/master/sednit/lojax.adoc"
    reference2 = "https://www.welivesecurity.com/2018/09/27/lojax-first-uefi-rootkit-found-wild-courtesy-sednit-group/"
  strings:
    $agent = "rpcnetp" ascii wide nocase
    // the C&C domain names of ESET's LoJax IoC list
    $c01 = "secao.org" ascii wide nocase
    $c02 = "ikmtrust.com" ascii wide nocase
    $c03 = "sysanalyticweb.com" ascii wide nocase
    $c04 = "lxwo.org" ascii wide nocase
    $c05 = "jflynci.com" ascii wide nocase
    $c06 = "remotepx.net" ascii wide nocase
    $c07 = "rdsnets.com" ascii wide nocase
    $c08 = "rpcnetconnect.com" ascii wide nocase
    $c09 = "webstp.com" ascii wide nocase
    $c10 = "elaxo.org" ascii wide nocase
  condition:
    $agent and any of ($c*)
}

rule lojax_published_sha1
{
  meta:
    family = "lojax"
    severity = "critical"
    description = "LoJax (Sednit) component by its published SHA-1: ReWriter_read/ReWriter_binary SPI flash tools, info_efi.exe, the autoche.exe dropper or a small agent EXE/DLL"
    reference = "https://github.com/eset/malware-ioc/blob/master/sednit/lojax.adoc"
    sample = "hash-only"
  condition:
    // Windows PE files; no size is published, 16 MiB is far above any of them. SecDxe (also listed by ESET)
    // is in known-bad-sha256.txt with the SHA-256 chipsec publishes for the same file.
    uint16(0) == 0x5A4D and filesize < 16MB and (
      hash.sha1(0, filesize) == "ea728abe26bac161e110970051e1561fd51db93b" or // ReWriter_read.exe
      hash.sha1(0, filesize) == "cc217342373967d1916cb20eca5ccb29caaf7c1b" or // ReWriter_binary.exe
      hash.sha1(0, filesize) == "4b9e71615b37aea1eaeb5b1cfa0eee048118ff72" or // info_efi.exe
      hash.sha1(0, filesize) == "700d7e763f59e706b4f05c69911319690f85432e" or // autoche.exe
      hash.sha1(0, filesize) == "1771e435ba25f9cdfa77168899490d87681f2029" or // small agent EXEs
      hash.sha1(0, filesize) == "ddaa06a4021baf980a08caea899f2904609410b9" or
      hash.sha1(0, filesize) == "10d571d66d3ab7b9ddf6a850cb9b8e38b07623c0" or
      hash.sha1(0, filesize) == "2529f6eda28d54490119d2123d22da56783c704f" or
      hash.sha1(0, filesize) == "e923ac79046ffa06f67d3f4c567e84a82dd7ff1b" or
      hash.sha1(0, filesize) == "8e138eecea8e9937a83bffe100d842d6381b6bb1" or
      hash.sha1(0, filesize) == "ef860dca7d7c928b68c4218007fb9069c6e654e9" or
      hash.sha1(0, filesize) == "e8f07caafb23eff83020406c21645d8ed0005ca6" or
      hash.sha1(0, filesize) == "09d2e2c26247a4a908952fee36b56b360561984f" or
      hash.sha1(0, filesize) == "f90ccf57e75923812c2c1da9f56166b36d1482be" or
      hash.sha1(0, filesize) == "397d97e278110a48bd2cb11bb5632b99a9100dbd"    // small agent DLL
    )
}

rule mosaicregressor_uefi_dropper
{
  meta:
    family = "mosaicregressor"
    severity = "critical"
    description = "MosaicRegressor UEFI implant (SmmInterfaceBase, SmmReset, SmmAccessSub, Ntfs modules, derived from Hacking Team VectorEDK) dropping IntelUpdate.exe into the Windows Startup folder"
    reference = "https://securelist.com/mosaicregressor/98849/"
    reference2 = "https://github.com/chipsec/chipsec/blob/1f53481fc990729b86938f30eca74c0c94d15025/chipsec/modules/tools/uefi/blockedlist.json"
  strings:
    $payload = "IntelUpdate.exe" ascii wide nocase
    $startup = "\\Start Menu\\Programs\\Startup" ascii wide nocase
    // module (UI) names and FFS file GUIDs of the implant's modules, as chipsec's blocked list gives them
    $mod1 = "SmmInterfaceBase" wide
    $mod2 = "SmmAccessSub" wide
    $mod3 = "SmmReset" wide
    $guid1 = { A9 58 02 F5 4D 2F A9 4D 86 1E BD A8 4D 07 A4 4C } // SmmInterfaceBase F50258A9-2F4D-4DA9-861E-BDA84D07A44C
    $guid2 = { EC 9A EA EA C1 C9 E2 46 9D 52 43 2A D2 5A 9B 0C } // SmmReset EAEA9AEC-C9C1-46E2-9D52-432AD25A9B0C
    $guid3 = { EC 9A EA EA C1 C9 E2 46 9D 52 43 2A D2 5A 9B 0B } // SmmAccessSub EAEA9AEC-C9C1-46E2-9D52-432AD25A9B0B
  condition:
    $payload and ($startup or any of ($mod*) or any of ($guid*))
}

rule vectoredk_uefi_dropper
{
  meta:
    family = "mosaicregressor"
    severity = "critical"
    description = "Hacking Team VectorEDK UEFI persistence (basis of MosaicRegressor): the fsbg/rkloader modules that drop the scout and soldier agents into the Startup folder"
    reference = "https://github.com/hackedteam/vector-edk/blob/master/MdeModulePkg/Application/fsbg/fsbg.c"
    reference2 = "https://github.com/chipsec/chipsec/blob/1f53481fc990729b86938f30eca74c0c94d15025/chipsec/modules/tools/uefi/blockedlist.json"
  strings:
    $startup = "\\AppData\\Roaming\\Microsoft\\Windows\\Start Menu\\Programs\\Startup\\" wide
    // agent file names of a release build (fsbg.c); the builder patches them in place with each target's names
    $name1 = "6To_60S7K_FU06yjEhjh5dpFw96549UU" wide
    $name2 = "kdfas7835jfwe09j29FKFLDOR3r35fJR" wide
    $name3 = "eorpekf3904kLDKQO023iosdn93smMXK" wide
    // FFS file GUIDs: rkloader (rkloader.inf), Ntfs, fsbg (fsbg.inf, chipsec's "app")
    $guid1 = { A9 58 02 F5 4D 2F A9 4D 86 1E BD A8 4D 07 A4 4C }
    $guid2 = { A9 48 02 F5 4D 2F E9 4D 86 AE BD A8 4D 07 A4 1C }
    $guid3 = { EC 9A EA EA C1 C9 E2 46 9D 52 43 2A D2 5A 9B 0B }
  condition:
    2 of ($name*) or ($startup and (any of ($name*) or any of ($guid*)))
}

rule moonbounce_core_dxe
{
  meta:
    family = "moonbounce"
    severity = "critical"
    description = "MoonBounce (APT41) UEFI rootkit: the tampered CORE_DXE (DXE Foundation) image by its published MD5"
    reference = "https://securelist.com/moonbounce-the-dark-side-of-uefi-firmware/105468/"
    reference2 = "https://github.com/Neo23x0/signature-base/blob/master/iocs/hash-iocs.txt"
    sample = "hash-only"
  condition:
    // a PE or TE image; no size is published, a DXE core is well under 4 MiB
    (uint16(0) == 0x5A4D or uint16(0) == 0x5A56) and filesize < 4MB and
      hash.md5(0, filesize) == "d94962550b90ddb3f80f62bd96bd9858"
}

rule blacklotus_c2_gate
{
  meta:
    family = "blacklotus"
    severity = "critical"
    description = "BlackLotus UEFI bootkit: the HTTP downloader's C&C gate (/API/hpb_gate.php) with one of its published C&C domains"
    reference = "https://github.com/eset/malware-ioc/blob/master/blacklotus/README.adoc"
    reference2 = "https://www.welivesecurity.com/2023/03/01/blacklotus-uefi-bootkit-myth-confirmed/"
  strings:
    $gate = "hpb_gate.php" ascii wide
    $c1 = "harrysucksdick.com" ascii wide nocase
    $c2 = "erdjknfweklsgwfmewfgref.com" ascii wide nocase
    $c3 = "egscorp.net" ascii wide nocase
    $c4 = "heikickgn.com" ascii wide nocase
    $c5 = "frassirishiproc.com" ascii wide nocase
    $c6 = "myrepository.name" ascii wide nocase
    $c7 = "myrepositoryx.com" ascii wide nocase
    $c8 = "xrepositoryx.name" ascii wide nocase
  condition:
    $gate and any of ($c*)
}

rule cosmicstrand_handleprotocol_hook
{
  meta:
    family = "cosmicstrand"
    severity = "critical"
    description = "CosmicStrand UEFI rootkit: the hook added to the CSMCORE DXE driver, which saves every register, compares the patched code bytes and EFI_LOADED_IMAGE_PROTOCOL's GUID, then calls its HandleProtocol hook"
    reference = "https://securelist.com/cosmicstrand-uefi-firmware-rootkit/106973/"
    reference2 = "https://github.com/binarly-io/FwHunt/blob/a2e3be630e407a49c8076178c712bcf6cccda1bf/rules/Threats/CosmicStrand.yml"
  strings:
    // mov rcx,[rsp]; push rax..r15; sub rsp,60h; mov rax,<48 85 C0 74 07 33 C0 E9>; cmp [rcx],rax; jnz
    $save_and_compare = { 48 8B 0C 24 50 53 51 52 55 56 57 41 52 41 53 41 54 41 55 41 56 41 57 48 83 EC 60 48 B8 48 85 C0 74 07 33 C0 E9 48 39 01 75 ?? }
    // then mov rax,<GUID low>; cmp rax,[rdx]; jnz; mov rax,<GUID high>; cmp rax,[rdx+8]; jnz; mov r15,[gST]; mov r14,[r8]
    $loaded_image_guid = { 48 B8 A1 31 1B 5B 62 95 D2 11 48 3B 02 75 ?? 48 B8 8E 3F 00 A0 C9 69 72 3B 48 3B 42 08 75 ?? 4C 8B 3D ?? ?? ?? ?? 4D 8B 30 }
  condition:
    // both parts, the GUID comparison right after the register save (the first of each: the hook is one block)
    (uint16(0) == 0x5A4D or uint16(0) == 0x5A56) and $save_and_compare and $loaded_image_guid and
      @loaded_image_guid[1] == @save_and_compare[1] + !save_and_compare[1]
}

rule moonbounce_core_dxe_hooks
{
  meta:
    family = "moonbounce"
    severity = "critical"
    description = "MoonBounce (APT41) UEFI rootkit: the inline hooks its tampered CORE_DXE writes over CoreCreateEventInternal and AllocatePool (a 'mov rax' stub, then pushfq and the saved registers)"
    reference = "https://securelist.com/moonbounce-the-dark-side-of-uefi-firmware/105468/"
    reference2 = "https://github.com/binarly-io/FwHunt/blob/a2e3be630e407a49c8076178c712bcf6cccda1bf/rules/Threats/MoonBounce-CORE-DXE.yml"
  strings:
    // mov byte [rax],48h; mov dword [rax+1],<48 89 ... >; pushfq; push rbx rcx rdx r8 r9 rsi rdi; sub rsp,38h|48h; call $+5
    $hook_create_event = { C6 00 48 C7 40 01 8B C4 48 89 9C 53 51 52 41 50 41 51 56 57 48 83 EC 38 E8 00 00 00 00 }
    $hook_allocate_pool = { C6 00 48 C7 40 01 89 5C 24 08 9C 53 51 52 41 50 41 51 56 57 48 83 EC 48 E8 00 00 00 00 }
  condition:
    (uint16(0) == 0x5A4D or uint16(0) == 0x5A56) and any of them
}
