// Cryptocurrency miners hidden in firmware: stratum pool URLs, XMRig configuration keys and the names of
// public mining pools. Each rule needs a pool protocol or pool host and a second, miner-specific indicator.
// Written for Firmscope.

rule xmrig_config
{
  meta:
    family = "cryptominer"
    severity = "high"
    description = "XMRig miner configuration (config.json keys such as donate-level, rig-id, randomx, nicehash) pointing at a pool"
    reference = "https://xmrig.com/docs/miner/config"
    reference2 = "https://github.com/xmrig/xmrig/blob/master/src/config.json"
  strings:
    $k1 = "\"donate-level\""
    $k2 = "\"donate-over-proxy\""
    $k3 = "\"rig-id\""
    $k4 = "\"nicehash\""
    $k5 = "\"huge-pages\""
    $k6 = "\"randomx\""
    $k7 = "\"keepalive\""
    $pools = "\"pools\""
    $url = /"url"\s*:\s*"[^"]{3,200}:[0-9]{2,5}"/
  condition:
    $pools and $url and 3 of ($k*)
}

rule stratum_miner_binary
{
  meta:
    family = "cryptominer"
    severity = "high"
    description = "Mining program: a stratum pool URL together with stratum protocol methods or miner algorithm names"
    reference = "https://en.bitcoin.it/wiki/Stratum_mining_protocol"
    reference2 = "https://www.trendmicro.com/vinfo/us/security/news/internet-of-things/cryptocurrency-mining-malware-targets-iot-devices"
  strings:
    $stratum = /stratum\+(tcp|ssl|tls):\/\// nocase
    $m1 = "mining.subscribe"
    $m2 = "mining.authorize"
    $m3 = "mining.submit"
    $a1 = "cryptonight" nocase
    $a2 = "randomx" nocase
    $a3 = "xmrig" nocase
    $a4 = "cpuminer" nocase
  condition:
    $stratum and (2 of ($m*) or 2 of ($a*))
}

rule mining_pool_reference
{
  meta:
    family = "cryptominer"
    severity = "medium"
    description = "Stratum URL of a well-known public mining pool (Monero and other CPU-mineable coins)"
    reference = "https://www.trendmicro.com/vinfo/us/security/news/internet-of-things/cryptocurrency-mining-malware-targets-iot-devices"
    reference2 = "https://unit42.paloaltonetworks.com/unit42-large-scale-monero-cryptocurrency-mining-operation-using-xmrig/"
  strings:
    $stratum = /stratum\+(tcp|ssl|tls):\/\// nocase
    $p1 = "minexmr.com" nocase
    $p2 = "supportxmr.com" nocase
    $p3 = "nanopool.org" nocase
    $p4 = "xmrpool.eu" nocase
    $p5 = "moneroocean.stream" nocase
    $p6 = "c3pool.com" nocase
    $p7 = "hashvault.pro" nocase
    $p8 = "minergate.com" nocase
    $p9 = "f2pool.com" nocase
    $p10 = "2miners.com" nocase
  condition:
    $stratum and any of ($p*)
}
