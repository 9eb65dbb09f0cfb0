/* Section sglang_config (issue 38): the two keys of SGLang's --config YAML
 * that probe.sh picked in the pod.  Every line is pod text: a value that is
 * no plain word is refused here again, unknown lines are ignored. */
#include "internal.h"

#include <string.h>

/* A backend or mode name: letters, digits, '_' and '-', 1 to 32 bytes. */
static int word_ok(struct pslice v)
{
	if (!v.n || v.n > 32)
		return 0;
	for (size_t i = 0; i < v.n; i++)
		if (!((v.s[i] >= 'A' && v.s[i] <= 'Z') || (v.s[i] >= 'a' && v.s[i] <= 'z') ||
		      (v.s[i] >= '0' && v.s[i] <= '9') || v.s[i] == '_' || v.s[i] == '-'))
			return 0;
	return 1;
}

/* The field of key k, or NULL for any other key. */
static char *field(struct probe_sglang_config *c, struct pslice k)
{
	return ps_eq(k, "disaggregation-transfer-backend") ? c->backend
	     : ps_eq(k, "disaggregation-mode") ? c->mode : NULL;
}

int probe_parse_sglang_config(const char *t, size_t n, struct probe_sglang_config *c)
{
	struct ptext it;
	struct pslice line, k, v;
	char *dst;
	int got = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		if (ps_eq(k, "state"))
			c->state = probe_engine_state_word(v);
		else if (ps_eq(k, "bad") && (dst = field(c, v)) != NULL) {
			dst[0] = '\0';   /* the key's last value is not a plain word */
			c->nbad++;
		} else if ((dst = field(c, k)) != NULL) {
			if (word_ok(v)) {
				ps_copy(dst, sizeof c->backend, v);   /* mode is as long */
				got++;
			} else {
				dst[0] = '\0';
				c->nbad++;
			}
		}
	}
	return got;
}
_Static_assert(sizeof ((struct probe_sglang_config *)0)->backend == sizeof ((struct probe_sglang_config *)0)->mode, "one length for both fields");
