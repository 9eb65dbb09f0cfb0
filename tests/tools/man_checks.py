#!/usr/bin/python3
"""Prints the man page's CHECKS section from the check table of the binary
(tests/tools/di_checks), so the section can be regenerated when checks are
added: python3 tests/tools/man_checks.py [build/tools/di_checks].  The rule
ids of the design notes ("(A1)", "(env-vars 1)") are left out.  e2e
test_release checks that every check in the table is in the man page, and
e2e test_check_cli that the man page's section is exactly this output
(regenerate: python3 tests/tools/man_checks.py > /tmp/c and paste it over
the section)."""
import re, subprocess, sys, textwrap
tool = sys.argv[1] if len(sys.argv) > 1 else 'build/tools/di_checks'
rows=[l.split('\t') for l in subprocess.run([tool],stdout=subprocess.PIPE,text=True).stdout.splitlines()]
# The family order is the binary's (check.h CHECK_FAMILIES), not a list here.
order=subprocess.run([tool,'families'],stdout=subprocess.PIPE,text=True,check=True).stdout.split()
ID=re.compile(r'^(?:[A-N]\d*[a-z]?|env-vars \d+|dynamo\.md [\d.]+|df|--recipe)$')
def paren(m):
    toks=[t.strip() for t in m.group(1).split(',')]
    keep=[t for t in toks if not ID.match(t)]
    return ' ('+', '.join(keep)+')' if keep else ''
def clean(r):
    r=re.sub(r' \(([^()]*)\)',paren,r)
    return r.replace('\\','\\\\').replace('-','\\-')
out=['.SH CHECKS','Every check has a name (the CHECK column of',
 '.BR node ,',
 'the testcase of',
 '.BR "check \\-o junit" ,',
 'checks[].name in JSON), a family (its column in the check table) and a',
 'rule: what it judges. By family:']
# Within a family, fix-first order (the rank), as the verdict ranks them.
rank={r[0]:int(r[2]) for r in (l.split('\t') for l in subprocess.run([tool,'rows'],stdout=subprocess.PIPE,text=True,check=True).stdout.splitlines())}
for fam in order:
    fr=sorted((r for r in rows if r[1]==fam), key=lambda r: rank[r[0]])
    if not fr: continue
    out.append('.SS '+fam)
    for name,_,rule in fr:
        out += ['.TP','.B '+name.replace('-','\\-')] + textwrap.wrap(clean(rule)+'.', 78, break_on_hyphens=False)
out += ['.SS Across pods',
 '.TP','.B pair\\-consistency',
 'A prefill and a decode pod of one graph can exchange KV over the same fast',
 'transport (see',
 '.BR "Consistency across the graph" ).',
 '.TP','.B node\\-consistency',
 'The nodes hosting workers agree on fabric, Active ports, nvidia_peermem,',
 'port rate, driver and gdrdrv; the odd node out is named.']
# The DGD checks (src/check/dgd.def), in the table's order.
out += ['.SS DynamoGraphDeployment']
for name,status,_,rule in (l.split('\t') for l in subprocess.run([tool,'dgd'],stdout=subprocess.PIPE,text=True,check=True).stdout.splitlines()):
    out += ['.TP','.B '+name.replace('-','\\-')] + textwrap.wrap(status+': '+clean(rule)+'.', 78, break_on_hyphens=False)
sys.stdout.write('\n'.join(out)+'\n')
