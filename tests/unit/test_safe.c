/* util/safe: the terminal rule (kubectl's EscapeTerminal, extended) and the
 * JSON/YAML rule (Go's encoding/json: invalid bytes become U+FFFD). */
#include <stdlib.h>
#include <string.h>

#include "util/safe.h"
#include "t.h"

static void term(const char *in, const char *want)
{
	char *got = safe_term(in);

	CHECK_STR(got, want);
	CHECK_INT(safe_is_term(in), !strcmp(in, want));
	free(got);
}

static void utf8(const char *in, const char *want)
{
	char *got = safe_utf8(in);

	CHECK_STR(got, want);
	CHECK_INT(safe_is_utf8(in), !strcmp(in, want));
	free(got);
}

static void test_term(void)
{
	term("qwen-decode-0", "qwen-decode-0");
	term("", "");
	/* kubectl's two: ESC -> ^[, CR -> \r */
	term("\x1b[2J\x1b]0;title\x07rc", "^[[2J^[]0;title^Grc");
	term("a\rb", "a\\rb");
	/* a newline must not fabricate a row or a completion candidate */
	term("pod\nfake-row", "pod\\nfake-row");
	term("a\tb", "a\\tb");
	term("nul\x01\x7f", "nul^A^?");
	/* C1 CSI (U+009B) as UTF-8, and the raw byte 0x9b (invalid alone) */
	term("x\xc2\x9b" "2J", "x\\u009b2J");
	term("x\x9b" "2J", "x\\x9b2J");
	/* bidi override and isolate: shown, not obeyed */
	term("ok\xe2\x80\xae" "deliaf", "ok\\u202edeliaf");
	term("\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069");
	/* valid non-ASCII stays */
	term("gr\xc3\xbc\xc3\x9f \xe2\x9c\x93 \xf0\x9f\x9a\x80", "gr\xc3\xbc\xc3\x9f \xe2\x9c\x93 \xf0\x9f\x9a\x80");
	/* invalid UTF-8: each bad byte as \xNN */
	term("tls\xff", "tls\\xff");
	term("\xc0\xaf", "\\xc0\\xaf");            /* overlong '/' */
	term("\xed\xa0\x80", "\\xed\\xa0\\x80");   /* surrogate */
	term("\xe2\x82", "\\xe2\\x82");            /* truncated at the end */
	term("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	{
		char *n = safe_term(NULL);
		CHECK_STR(n, "");
		free(n);
	}
}

static void test_utf8(void)
{
	utf8("rc,cuda_copy", "rc,cuda_copy");
	utf8("rc\xff", "rc\xef\xbf\xbd");
	utf8("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
	utf8("\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd");
	/* controls are valid UTF-8: left to the writer's escaping */
	utf8("\x1b[1m", "\x1b[1m");
	utf8("\xe2\x80\xae", "\xe2\x80\xae");
	{
		char *n = safe_utf8(NULL);
		CHECK_STR(n, "");
		free(n);
	}
}

/* Every byte string comes out as valid UTF-8 without a control. */
static void test_all_bytes(void)
{
	unsigned char in[4];
	int a, b;

	for (a = 1; a < 256; a++)
		for (b = 0; b < 256; b += 17) {
			char *t, *u;
			in[0] = (unsigned char)a, in[1] = (unsigned char)b, in[2] = 0xe2, in[3] = 0;
			t = safe_term((char *)in);
			u = safe_utf8((char *)in);
			CHECK(safe_is_utf8(t) && safe_is_term(t));
			CHECK(safe_is_utf8(u));
			free(t);
			free(u);
		}
}

int main(void)
{
	test_term();
	test_utf8();
	test_all_bytes();
	return T_DONE("test_safe");
}
