// IoT botnets seen on routers, cameras and DVRs. Every rule needs several independent indicators taken from
// public analyses (strings, obfuscated tables, command names), so that a clean BusyBox, a BitTorrent client or
// an IRC tool never matches on one shared word. Written for Firmscope from the public write-ups in `reference*`.

rule mirai_credential_table
{
  meta:
    family = "mirai"
    severity = "critical"
    description = "Mirai telnet brute-force credential table: default IoT passwords from the published Mirai scanner, in clear or XOR-0x22 obfuscated as in the original source"
    reference = "https://github.com/jgamblin/Mirai-Source-Code/blob/master/mirai/bot/scanner.c"
    reference2 = "https://krebsonsecurity.com/2016/10/who-makes-the-iot-things-under-attack/"
  strings:
    $p1 = "xc3511"
    $p2 = "vizxv"
    $p3 = "7ujMko0admin"
    $p4 = "7ujMko0vizxv"
    $p5 = "Zte521"
    $p6 = "hi3518"
    $p7 = "jvbzd"
    $p8 = "klv1234"
    $p9 = "juantech"
    $p10 = "smcadmin"
    $x1 = "xc3511" xor(0x22)
    $x2 = "vizxv" xor(0x22)
    $x3 = "7ujMko0admin" xor(0x22)
    $x4 = "7ujMko0vizxv" xor(0x22)
    $x5 = "Zte521" xor(0x22)
    $x6 = "hi3518" xor(0x22)
    $x7 = "jvbzd" xor(0x22)
    $x8 = "klv1234" xor(0x22)
    $x9 = "juantech" xor(0x22)
    $x10 = "smcadmin" xor(0x22)
  condition:
    uint32(0) == 0x464c457f and (4 of ($p*) or 4 of ($x*))
}

rule mirai_string_table
{
  meta:
    family = "mirai"
    severity = "critical"
    description = "Mirai bot string table (scanner probe and reply, attack and killer strings) in clear or XOR-0x22 obfuscated as in the published table.c"
    reference = "https://github.com/jgamblin/Mirai-Source-Code/blob/master/mirai/bot/table.c"
    reference2 = "https://blog.malwaremustdie.org/2016/08/mmd-0056-2016-linuxmirai-just.html"
  strings:
    $c1 = "/bin/busybox MIRAI"
    $c2 = "MIRAI: applet not found"
    $c3 = "listening tun0"
    $c4 = "TSource Engine Query"
    $c5 = "LOLNOGTFO"
    $c6 = "/dev/misc/watchdog"
    $c7 = "dvrHelper"
    $x1 = "/bin/busybox MIRAI" xor(0x22)
    $x2 = "MIRAI: applet not found" xor(0x22)
    $x3 = "listening tun0" xor(0x22)
    $x4 = "TSource Engine Query" xor(0x22)
    $x5 = "LOLNOGTFO" xor(0x22)
    $x6 = "/proc/net/tcp" xor(0x22)
    $x7 = "dvrHelper" xor(0x22)
  condition:
    uint32(0) == 0x464c457f and (3 of ($c*) or 3 of ($x*))
}

rule gafgyt_bot_commands
{
  meta:
    family = "gafgyt"
    severity = "critical"
    description = "Gafgyt/Bashlite (Lizkebab, Torlus, Qbot) IRC-less bot: its command words and telnet scanner report format"
    reference = "https://unit42.paloaltonetworks.com/unit42-multi-exploit-iotlinux-botnets-mirai-gafgyt-target-apache-struts-sonicwall/"
    reference2 = "https://www.trendmicro.com/vinfo/us/threat-encyclopedia/malware/bashlite"
  strings:
    $c1 = "LOLNOGTFO"
    $c2 = "KILLATTK"
    $c3 = "GETLOCALIP"
    $c4 = "SCANNER ON"
    $c5 = "SCANNER OFF"
    $c6 = "gayfgt"
    $c7 = "REPORT %s:%s:%s"
    $c8 = "BOGOMIPS"
  condition:
    uint32(0) == 0x464c457f and 3 of them
}

rule mozi_p2p_config
{
  meta:
    family = "mozi"
    severity = "critical"
    description = "Mozi P2P botnet: DHT bootstrap nodes used to join its network together with its bracketed configuration tags or its payload names"
    reference = "https://blog.netlab.360.com/mozi-another-botnet-using-dht/"
    reference2 = "https://securityintelligence.com/posts/botnet-attack-mozi-mozied-onto-iot-devices/"
  strings:
    $dht1 = "dht.transmissionbt.com"
    $dht2 = "router.bittorrent.com"
    $dht3 = "router.utorrent.com"
    $dht4 = "bttracker.debian.org"
    $cfg1 = "[ss]"
    $cfg2 = "[hp]"
    $cfg3 = "[count]"
    $cfg4 = "[idp]"
    $cfg5 = "[ud]"
    $cfg6 = "[dip]"
    $cfg7 = "[rn]"
    $cfg8 = "[sv]"
    $name1 = "Mozi.m"
    $name2 = "Mozi.a"
  condition:
    uint32(0) == 0x464c457f and 2 of ($dht*) and (4 of ($cfg*) or any of ($name*))
}

rule hajime_author_message
{
  meta:
    family = "hajime"
    severity = "high"
    description = "Hajime P2P worm: the signed 'white hat' message its bot prints on infected devices"
    reference = "https://security.rapid7.com/download/Rapid7-Hajime-Research-Report.pdf"
    reference2 = "https://www.symantec.com/connect/blogs/hajime-worm-battles-mirai-control-internet-things"
  strings:
    $m1 = "Just a white hat, securing some systems."
    $m2 = "Important messages will be signed like this!"
    $m3 = "Hajime Author."
    $m4 = "Contact CLOSED"
    $m5 = "Stay sharp!"
  condition:
    3 of them
}

rule tsunami_kaiten_irc_bot
{
  meta:
    family = "tsunami"
    severity = "critical"
    description = "Tsunami/Kaiten IRC DDoS bot: its NOTICE help lines for flood and control commands"
    reference = "https://www.trendmicro.com/vinfo/us/threat-encyclopedia/malware/elf_kaiten"
    reference2 = "https://www.intezer.com/blog/research/new-linux-threat-tsunami-variant/"
  strings:
    $n1 = "NOTICE %s :TSUNAMI <target> <secs>"
    $n2 = "NOTICE %s :PAN <target> <port> <secs>"
    $n3 = "NOTICE %s :UDP <target> <port> <secs>"
    $n4 = "NOTICE %s :UNKNOWN <target> <secs>"
    $n5 = "NOTICE %s :NICK <nick>"
    $n6 = "NOTICE %s :KILLALL"
    $n7 = "NOTICE %s :GETSPOOFS"
    $n8 = "NOTICE %s :SPOOFS <subnet>"
    $k = "Kaiten wa goraku"
  condition:
    3 of ($n*) or ($k and 1 of ($n*))
}

rule xorddos_installer
{
  meta:
    family = "xorddos"
    severity = "critical"
    description = "XorDDoS Linux DDoS trojan: its XOR key, cron.hourly persistence script and rootkit helper names"
    reference = "https://blog.malwaremustdie.org/2014/09/mmd-0028-2014-fuzzy-reversing-new-china.html"
    reference2 = "https://www.microsoft.com/en-us/security/blog/2022/05/19/rise-in-xorddos-a-deeper-look-at-the-stealthy-ddos-malware-targeting-linux-devices/"
  strings:
    $key = "BB2FA36AAA9541F0"
    $s1 = "/etc/cron.hourly/gcc.sh"
    $s2 = "/lib/libudev.so"
    $s3 = "/var/run/gcc.pid"
    $f1 = "HidePidPort"
    $f2 = "InstallSYS"
    $f3 = "DelService_form_pid"
    $f4 = "AddService"
    $f5 = "encrypt_code"
  condition:
    uint32(0) == 0x464c457f and (($key and 1 of ($s*, $f*)) or 3 of ($s*, $f*))
}

rule vpnfilter_stages
{
  meta:
    family = "vpnfilter"
    severity = "critical"
    description = "VPNFilter router malware: stage 1 C2 discovery (Photobucket galleries, toknowall.com), its working folder and the forged user agents of stages 1 and 2"
    reference = "https://blog.talosintelligence.com/2018/05/VPNFilter.html"
    reference2 = "https://blog.talosintelligence.com/2018/06/vpnfilter-update.html"
  strings:
    $c1 = "toknowall.com"
    $c2 = "photobucket.com/user/"
    $d = "vpnfilter"
    $ua1 = "Mozilla/5.0 (compatible; MSIE 8.0; Windows NT 5.2; Trident/4.0)"
    $ua2 = "Mozilla/6.1 (compatible; MSIE 9.0; Windows NT 5.3; Trident/5.0)"
  condition:
    uint32(0) == 0x464c457f and 2 of them
}

rule botenago_exploit_table
{
  meta:
    family = "botenago"
    severity = "critical"
    description = "BotenaGo Go botnet: its table of router and DVR exploit functions (main.infectFunction*, main.scannerInitExploits)"
    reference = "https://cybersecurity.att.com/blogs/labs-research/att-alien-labs-finds-new-golang-malwarebotenago-targeting-millions-of-routers-and-iot-devices-with-more-than-30-exploits"
    reference2 = "https://www.nozominetworks.com/blog/new-botenago-variant-discovered-by-nozomi-networks-labs"
  strings:
    $init = "main.scannerInitExploits"
    $inf = "main.infectFunction"
  condition:
    uint32(0) == 0x464c457f and ($init or #inf >= 3)
}
