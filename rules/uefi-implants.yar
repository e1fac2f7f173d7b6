// Firmware implants and UEFI threats, by the indicators their public analyses name: module names, dropped
// file names and paths, C2 domains. UEFI modules keep names and paths in UTF-16, so most strings are `wide`.
// MoonBounce and BlackLotus have no rule here: their reports publish no strings that survive in the modules
// (MoonBounce patches CORE_DXE code only; BlackLotus lives on the EFI system partition, and ESET lists SHA-1
// hashes), and a condition on code bytes we cannot verify would be guesswork. Written for Firmscope.

rule lojax_uefi_dropper
{
  meta:
    family = "lojax"
    severity = "critical"
    description = "LoJax (Sednit) UEFI rootkit: the SecDxe DXE driver that writes the trojanised LoJack agent (rpcnetp.exe) through the autoche.exe boot-execute dropper"
    reference = "https://www.welivesecurity.com/2018/09/27/lojax-first-uefi-rootkit-found-wild-courtesy-sednit-group/"
    reference2 = "https://www.welivesecurity.com/wp-content/uploads/2018/09/ESET-LoJax.pdf"
  strings:
    $mod = "SecDxe" wide
    $drop1 = "autoche.exe" ascii wide nocase
    $drop2 = "rpcnetp.exe" ascii wide nocase
    $boot = "autocheck autoche" ascii wide nocase
  condition:
    $mod and 2 of ($drop1, $drop2, $boot)
}

rule lojax_small_agent
{
  meta:
    family = "lojax"
    severity = "critical"
    description = "LoJax small agent: the LoJack rpcnetp agent re-pointed at Sednit command servers"
    reference = "https://www.netscout.com/blog/asert/lojack-becomes-double-agent"
    reference2 = "https://www.welivesecurity.com/wp-content/uploads/2018/09/ESET-LoJax.pdf"
  strings:
    $agent = "rpcnetp" ascii wide nocase
    $c1 = "secudrives.com" ascii wide nocase
    $c2 = "remotepx.net" ascii wide nocase
    $c3 = "elaxo.org" ascii wide nocase
    $c4 = "ikmtrust.com" ascii wide nocase
    $c5 = "sysanalyticweb.com" ascii wide nocase
    $c6 = "lxwo.org" ascii wide nocase
  condition:
    $agent and any of ($c*)
}

rule mosaicregressor_uefi_dropper
{
  meta:
    family = "mosaicregressor"
    severity = "critical"
    description = "MosaicRegressor UEFI implant (SmmInterfaceBase, derived from Hacking Team VectorEDK): drops IntelUpdate.exe into the Windows Startup folder"
    reference = "https://securelist.com/mosaicregressor/98849/"
    reference2 = "https://media.kasperskycontenthub.com/wp-content/uploads/sites/43/2020/10/07080558/MosaicRegressor_Technical-details.pdf"
  strings:
    $mod1 = "SmmInterfaceBase" ascii wide
    $mod2 = "SmmAccessSub" ascii wide
    $mod3 = "SmmReset" ascii wide
    $payload = "IntelUpdate.exe" ascii wide nocase
    $startup = "\\Start Menu\\Programs\\Startup" ascii wide nocase
  condition:
    $payload and ($startup or any of ($mod*))
}

rule vectoredk_uefi_dropper
{
  meta:
    family = "mosaicregressor"
    severity = "critical"
    description = "Hacking Team VectorEDK UEFI persistence (basis of MosaicRegressor): drops its scout/soldier agents into the Startup folder"
    reference = "https://securelist.com/mosaicregressor/98849/"
    reference2 = "https://www.mcafee.com/blogs/other-blogs/mcafee-labs/hacking-team-uefi-rootkit/"
  strings:
    $a1 = "scoute.exe" ascii wide nocase
    $a2 = "soldier.exe" ascii wide nocase
    $startup = "\\Start Menu\\Programs\\Startup" ascii wide nocase
    $ntfs = "fsbg" ascii wide
  condition:
    any of ($a*) and ($startup or $ntfs)
}

rule cosmicstrand_csmcore_implant
{
  meta:
    family = "cosmicstrand"
    severity = "critical"
    description = "CosmicStrand UEFI rootkit: a patched CSMCORE DXE driver whose kernel shellcode contacts update.bokts.com"
    reference = "https://securelist.com/cosmicstrand-uefi-firmware-rootkit/106973/"
    reference2 = "https://www.qihoo.net/lab/cosmicstrand"
  strings:
    $c2 = "update.bokts.com" ascii wide nocase
    $csm = "CSMCORE" ascii wide
  condition:
    $c2 and ($csm or uint16(0) == 0x5a4d or uint16(0) == 0x5a56)
}
