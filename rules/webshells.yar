// Webshells: server-side scripts that run what a request tells them to. A page that passes request input
// straight to eval/system is a shell whoever wrote it. Written for Firmscope from the public descriptions
// of these shells; conditions look at the code construct, never at a single word.

rule php_eval_request_input
{
  meta:
    family = "webshell"
    severity = "critical"
    description = "PHP webshell: request input (POST/GET/REQUEST/COOKIE) handed to eval/assert/create_function, optionally through a decoder"
    reference = "https://www.microsoft.com/en-us/security/blog/2021/02/11/web-shell-attacks-continue-to-rise/"
    reference2 = "https://www.cisa.gov/news-events/alerts/2017/08/09/compromised-web-servers-and-web-shells-threat-awareness-and-guidance"
  strings:
    $php = "<?php" nocase
    $short = "<?="
    $e = /\b(eval|assert|create_function)\s*\(\s*(\$\w+\s*\(\s*)?((base64_decode|gzinflate|gzuncompress|str_rot13|strrev|stripslashes)\s*\(\s*)*\$_(POST|GET|REQUEST|COOKIE|SERVER\s*\[\s*['"]HTTP_)/ nocase
  condition:
    ($php or $short) and $e
}

rule php_exec_request_input
{
  meta:
    family = "webshell"
    severity = "critical"
    description = "PHP webshell: request input handed straight to a shell (system, exec, passthru, shell_exec, popen, proc_open or backticks)"
    reference = "https://www.microsoft.com/en-us/security/blog/2021/02/11/web-shell-attacks-continue-to-rise/"
    reference2 = "https://owasp.org/www-community/attacks/Command_Injection"
  strings:
    $php = "<?php" nocase
    $short = "<?="
    $x = /\b(system|exec|passthru|shell_exec|popen|proc_open|pcntl_exec)\s*\(\s*\$_(POST|GET|REQUEST|COOKIE)\s*\[/ nocase
    $bt = /`\s*\$_(POST|GET|REQUEST)\s*\[[^\]]{1,40}\]\s*`/
  condition:
    ($php or $short) and ($x or $bt)
}

rule php_known_webshell_kits
{
  meta:
    family = "webshell"
    severity = "critical"
    description = "Known PHP webshell kits (c99, r57, WSO, b374k) by their banners and action names"
    reference = "https://www.cisa.gov/news-events/alerts/2015/11/10/compromised-web-servers-and-web-shells-threat-awareness-and-guidance"
    reference2 = "https://github.com/b374k/b374k"
  strings:
    $php = "<?php" nocase
    $k1 = "c99shell" nocase
    $k2 = "r57shell" nocase
    $k3 = "FilesMan"
    $k4 = "b374k" nocase
    $k5 = "WSO " fullword
    $k6 = "safe_mode" nocase
    $k7 = "uname -a" nocase
  condition:
    $php and 3 of ($k*)
}

rule asp_eval_request_input
{
  meta:
    family = "webshell"
    severity = "critical"
    description = "ASP/ASPX webshell: Request input passed to Eval/Execute (the 'China Chopper' one-liner and its kin)"
    reference = "https://www.mandiant.com/resources/blog/breaking-down-china-chopper-web-shell-part-i"
    reference2 = "https://www.cisa.gov/news-events/analysis-reports/ar21-084a"
  strings:
    $asp = "<%"
    $x = /\b(eval|execute|executeglobal)\s*\(?\s*request(\.(item|form|querystring))?\s*[\(\[]/ nocase
  condition:
    $asp and $x
}

rule jsp_exec_request_input
{
  meta:
    family = "webshell"
    severity = "critical"
    description = "JSP webshell: a request parameter executed through Runtime.exec or ProcessBuilder"
    reference = "https://www.microsoft.com/en-us/security/blog/2021/02/11/web-shell-attacks-continue-to-rise/"
    reference2 = "https://owasp.org/www-community/attacks/Command_Injection"
  strings:
    $jsp1 = "<%"
    $jsp2 = "request.getParameter"
    $x1 = /Runtime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*exec\s*\(\s*request\s*\.\s*getParameter\s*\(/
    $x2 = /new\s+ProcessBuilder\s*\([^;]{0,80}request\s*\.\s*getParameter\s*\(/
  condition:
    $jsp1 and $jsp2 and any of ($x*)
}

rule cgi_shell_query_string_exec
{
  meta:
    family = "webshell"
    severity = "critical"
    description = "CGI shell script that runs the raw query string (eval, sh -c or a command substitution of QUERY_STRING)"
    reference = "https://www.cisa.gov/news-events/alerts/2015/11/10/compromised-web-servers-and-web-shells-threat-awareness-and-guidance"
    reference2 = "https://owasp.org/www-community/attacks/Command_Injection"
  strings:
    $shebang = "#!"
    $x = /(\beval|\bsh\s+-c|\bbash\s+-c|\$\(|`)\s*["']?\$\{?QUERY_STRING/
  condition:
    $shebang at 0 and $x
}
