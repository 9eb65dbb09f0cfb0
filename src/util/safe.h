/* Text from the cluster, a pod, a kubeconfig or a file, made safe to show.
 *
 * Two rules, one per destination:
 *  - safe_term(): for a terminal (tables, findings, errors, -v logs,
 *    completion candidates).  Nothing that a terminal interprets survives:
 *    ESC becomes "^[" and CR "\r" as kubectl's printers do
 *    (k8s.io/cli-runtime/pkg/printers/terminal.go, EscapeTerminal, added for
 *    kubernetes issue 101695); we extend the same idea to what kubectl
 *    leaves alone: LF "\n", TAB "\t", other C0 controls and DEL in caret
 *    notation ("^@", "^G", "^?"), C1 controls and the bidi controls
 *    (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069) as "\u202e", and every
 *    byte that is not part of valid UTF-8 as "\xff" (Go's %q style).
 *    The result is one line of printable, valid UTF-8.
 *  - safe_utf8(): for JSON and YAML.  Always valid UTF-8: each byte that is
 *    not part of a valid sequence (bad lead, truncated, overlong, surrogate,
 *    above U+10FFFF) becomes U+FFFD, as Go's encoding/json does when kubectl
 *    marshals a string.  safe_doc() adds the terminal rule below for
 *    the strings of -o json / -o yaml documents.
 *
 * Both take NULL (giving "") and return a string the caller frees.
 */
#ifndef UTIL_SAFE_H
#define UTIL_SAFE_H

#include <stddef.h>
#include <stdio.h>

char *safe_term(const char *s);
/* safe_term() for a block of several lines: LF is kept, all else the same. */
char *safe_term_text(const char *s);
/* safe_term() for printf arguments: the result belongs to a per-thread ring
 * of 16 and stays valid until 16 more calls; never free it. */
const char *safe_show(const char *s);
char *safe_utf8(const char *s);
/* For the strings of JSON and YAML documents (issue 37 item 6): safe_utf8()
 * and, like safe_term_text(), every C0/C1 control but LF, DEL and the bidi
 * controls spelled visibly ("^[", "\r", "\t", "\u009b"), so a document's
 * string printed raw (jq -r, yq) cannot drive a terminal. */
char *safe_doc(const char *s);
/* 1 when s is NULL or safe_doc(s) would return it unchanged. */
int safe_is_doc(const char *s);
/* Writes prefix (our own text, as is), safe_term(s) and a newline. */
void safe_put_line(FILE *out, const char *prefix, const char *s);
/* 1 when s is NULL or already valid UTF-8 (no copy needed for JSON/YAML). */
int safe_is_utf8(const char *s);
/* 1 when safe_term(s) would return s unchanged. */
int safe_is_term(const char *s);
/* Length of the valid UTF-8 sequence at p (1-4), its code point in *cp;
 * 0 when the byte at p does not start one.  p is NUL-terminated. */
size_t safe_utf8_seq(const unsigned char *p, unsigned *cp);
/* 1 for a code point that safe_term() escapes: C0, DEL, C1 and the bidi
 * controls (for writers with an escape syntax of their own). */
int safe_is_control(unsigned cp);

#endif
