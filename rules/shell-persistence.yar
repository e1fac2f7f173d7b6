// Reverse shells, bind shells and download-and-run persistence in scripts, init files and crontabs. A help
// text that mentions `-e` or `telnetd` (BusyBox, ncat) never matches: each pattern needs the concrete
// command line that hands a shell to the network or runs a fetched file. Written for Firmscope.

rule netcat_exec_shell
{
  meta:
    family = "reverse-shell"
    severity = "high"
    description = "netcat/ncat started with -e /bin/sh (or bash): a shell handed to a network peer"
    reference = "https://attack.mitre.org/techniques/T1059/004/"
    reference2 = "https://www.sans.org/blog/netcat-cheat-sheet/"
  strings:
    $x = /\b(nc|ncat|netcat)(\.traditional|\.openbsd)?\s[^\n;|&]{0,120}\s-[a-zA-Z]*[ec]\s*\/bin\/(ba|da|a)?sh\b/
  condition:
    $x
}

rule dev_tcp_reverse_shell
{
  meta:
    family = "reverse-shell"
    severity = "high"
    description = "Shell redirected to bash's /dev/tcp/host/port (sh -i / bash -i with its input and output on a socket)"
    reference = "https://attack.mitre.org/techniques/T1059/004/"
    reference2 = "https://www.gnu.org/software/bash/manual/html_node/Redirections.html"
  strings:
    $tcp = /\/dev\/(tcp|udp)\/[0-9A-Za-z.\-]{3,253}\/[0-9]{1,5}/
    $i = /\b(ba|da)?sh\s+-i\b/
    $dup = /[0-9]?>&\s*[0-9]/
  condition:
    $tcp and ($i or $dup)
}

rule telnetd_root_shell
{
  meta:
    family = "backdoor-shell"
    severity = "high"
    description = "telnetd started with /bin/sh as its login program: an unauthenticated root shell on the network (used by Mirai-family droppers and debug backdoors)"
    reference = "https://www.busybox.net/downloads/BusyBox.html"
    reference2 = "https://attack.mitre.org/techniques/T1133/"
  strings:
    $x = /\btelnetd\s[^\n;|&]{0,120}-l\s*\/bin\/(ba|a)?sh\b/
  condition:
    $x
}

rule scripted_socket_shell
{
  meta:
    family = "reverse-shell"
    severity = "high"
    description = "Python or Perl socket reverse shell: a socket connected and its descriptors given to an interactive shell"
    reference = "https://attack.mitre.org/techniques/T1059/006/"
    reference2 = "https://attack.mitre.org/techniques/T1059/"
  strings:
    $py1 = "socket.socket(" ascii
    $py2 = /os\.dup2\s*\(\s*\w+\.fileno\s*\(\s*\)\s*,\s*[012]\s*\)/
    $py3 = /(subprocess\.call|pty\.spawn|os\.system)\s*\(\s*\[?\s*["']\/bin\/(ba)?sh/
    $pl1 = "use Socket" ascii
    $pl2 = /open\s*\(\s*STD(IN|OUT|ERR)\s*,\s*["'][<>]&/
    $pl3 = /exec\s*\(?\s*["']\/bin\/(ba)?sh\s+-i/
  condition:
    all of ($py*) or all of ($pl*)
}

rule fetch_pipe_to_shell
{
  meta:
    family = "dropper"
    severity = "high"
    description = "Script that downloads code and pipes it straight into a shell (wget/curl ... | sh)"
    reference = "https://attack.mitre.org/techniques/T1105/"
    reference2 = "https://unit42.paloaltonetworks.com/mirai-variant-v3g4/"
  strings:
    $x = /\b(wget|curl|busybox\s+wget)\s[^\n|;&]{0,200}(https?|ftp):\/\/[^\n|;&]{1,200}\|\s*(sudo\s+)?(\/bin\/|\/usr\/bin\/)?(ba|da|a)?sh\b/
  condition:
    $x
}

rule fetch_chmod_execute
{
  meta:
    family = "dropper"
    severity = "high"
    description = "Download-and-run chain: a file fetched into a temporary folder, made executable and started (wget -O /tmp/x; chmod +x /tmp/x; /tmp/x), as IoT droppers do"
    reference = "https://attack.mitre.org/techniques/T1105/"
    reference2 = "https://unit42.paloaltonetworks.com/mirai-variant-v3g4/"
  strings:
    $x = /\b(wget|curl|tftp|ftpget)\s[^\n]{0,200}(\/tmp|\/var\/tmp|\/dev\/shm|\/var\/run)\/[^\n]{0,200}chmod\s+(\+x|[0-7]?[0-7]?7[0-7])\s[^\n]{0,200}(\/tmp|\/var\/tmp|\/dev\/shm|\/var\/run|\.)\/[A-Za-z0-9._-]+/
  condition:
    $x
}

rule cron_fetch_and_run
{
  meta:
    family = "persistence"
    severity = "critical"
    description = "Crontab entry that periodically downloads and runs code (a schedule line whose command fetches with wget/curl and runs the result)"
    reference = "https://attack.mitre.org/techniques/T1053/003/"
    reference2 = "https://www.trendmicro.com/en_us/research/20/i/the-evolution-of-malicious-shell-scripts.html"
  strings:
    $x = /(^|\n)\s*(@reboot|@hourly|@daily|[0-9*\/,-]+\s+[0-9*\/,-]+\s+[0-9*\/,-]+\s+[0-9*\/,-]+\s+[0-9*\/,-]+)\s+(root\s+)?[^\n]{0,100}\b(wget|curl)\s[^\n]{0,300}(\|\s*(ba)?sh|;\s*(ba)?sh\s|chmod\s+(\+x|[0-7]{3}))/
  condition:
    $x
}
