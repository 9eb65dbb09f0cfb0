#include "opts.h"
#include "duration.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct opt *find_long(const struct opt *const *tables,
				   const char *name, size_t len)
{
	for (; *tables; tables++) {
		const struct opt *o;
		for (o = *tables; o->type != OPT_END; o++)
			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
	}
	return NULL;
}

static const struct opt *find_short(const struct opt *const *tables, char c)
{
	for (; *tables; tables++) {
		const struct opt *o;
		for (o = *tables; o->type != OPT_END; o++)
			if (o->shorthand && o->shorthand == c)
				return o;
	}
	return NULL;
}

/* How pflag names a flag in its messages. */
static void flag_label(const struct opt *o, int as_short, char *out, size_t n)
{
	if (as_short)
		snprintf(out, n, "'%c' in -%c", o->shorthand, o->shorthand);
	else
		snprintf(out, n, "--%s", o->name);
}

static int parse_bool(const char *v, int *out)
{
	static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True", NULL };
	static const char *const f[] = { "0", "f", "F", "FALSE", "false", "False", NULL };
	int i;

	for (i = 0; t[i]; i++)
		if (!strcmp(v, t[i]))
			return *out = 1, 0;
	for (i = 0; f[i]; i++)
		if (!strcmp(v, f[i]))
			return *out = 0, 0;
	return -1;
}

static int store(const struct opt *o, const char *v, struct err *e)
{
	char *end;
	long n;

	switch (o->type) {
	case OPT_STRING:
		*(const char **)o->dest = v;
		return 0;
	case OPT_DURATION:   /* parsed by opts_check, after every flag is read */
		((struct opt_duration *)o->dest)->text = v;
		return 0;
	case OPT_STRV: {
		const char **list = o->dest;
		int k = 0;

		while (k < OPT_STRV_MAX && list[k])
			k++;
		if (k == OPT_STRV_MAX)
			return err_set(e, ERR_USAGE, "too many --%s flags (at most %d)",
				       o->name, OPT_STRV_MAX);
		list[k] = v;
		list[k + 1] = NULL;
		return 0;
	}
	case OPT_BOOL:
		if (parse_bool(v, o->dest) == 0)
			return 0;
		return err_set(e, ERR_USAGE,
			       "invalid argument \"%s\" for \"--%s\" flag: "
			       "strconv.ParseBool: parsing \"%s\": invalid syntax",
			       v, o->name, v);
	case OPT_INT:
		errno = 0;
		n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < -1000000000L || n > 1000000000L)
			return err_set(e, ERR_USAGE,
				       "invalid argument \"%s\" for \"--%s\" flag: "
				       "strconv.ParseInt: parsing \"%s\": invalid syntax",
				       v, o->name, v);
		*(int *)o->dest = (int)n;
		return 0;
	case OPT_END:
		break;
	}
	return err_set(e, ERR_USAGE, "internal error: bad flag table");
}

/* Handles a flag whose value may be inline (val != NULL) or the next arg. */
static int take(const struct opt *o, int as_short, const char *val, int argc,
		char **argv, int *i, struct err *e)
{
	char label[64];

	if (o->type == OPT_BOOL)
		return store(o, val ? val : "true", e);
	if (val)
		return store(o, val, e);
	if (*i + 1 >= argc) {
		flag_label(o, as_short, label, sizeof(label));
		return err_set(e, ERR_USAGE, "flag needs an argument: %s", label);
	}
	return store(o, argv[++*i], e);
}

static int parse_long(const struct opt *const *tables, int argc, char **argv,
		      int *i, struct err *e)
{
	const char *name = argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o = find_long(tables, name, len);

	if (!o)
		return err_set(e, ERR_USAGE, "unknown flag: --%.*s", (int)len, name);
	return take(o, 0, eq ? eq + 1 : NULL, argc, argv, i, e);
}

/* -abc: booleans may be grouped; a value flag takes the rest of the word
 * ("-nNS", and pflag's "-n=NS" which means NS). */
static int parse_short(const struct opt *const *tables, int argc, char **argv,
		       int *i, struct err *e)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		const struct opt *o = find_short(tables, *p);
		if (!o)
			return err_set(e, ERR_USAGE,
				       "unknown shorthand flag: '%c' in %s", *p, argv[*i]);
		if (o->type == OPT_BOOL && p[1] != '=')
			store(o, "true", e);
		else if (p[1] == '=')
			return take(o, 1, p + 2, argc, argv, i, e);
		else
			return take(o, 1, p[1] ? p + 1 : NULL, argc, argv, i, e);
	}
	return 0;
}

int opts_parse(int argc, char **argv, const struct opt *const *tables,
	       char **pos, int *npos, struct err *e)
{
	int i, rc = 0;

	*npos = 0;
	for (i = 0; i < argc && rc == 0; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (++i < argc)
				pos[(*npos)++] = argv[i];
			break;
		}
		if (a[0] == '-' && a[1] == '-')
			rc = parse_long(tables, argc, argv, &i, e);
		else if (a[0] == '-' && a[1])
			rc = parse_short(tables, argc, argv, &i, e);
		else
			pos[(*npos)++] = argv[i];
	}
	return rc;
}

static int check_duration(const struct opt *o, struct err *e)
{
	struct opt_duration *d = o->dest;
	char lo[32], hi[32];
	struct err ignored;
	long ms;

	if (!d->text)
		return 0;
	err_clear(&ignored);
	if (duration_parse_ms(d->text, &ms, &ignored) == 0 && ms >= o->min &&
	    (!o->max || ms <= o->max))
		return d->ms = ms, 0;
	if (!o->max)
		return err_set(e, ERR_USAGE, "invalid --%s \"%s\"", o->name, d->text);
	duration_format_ms(o->min, lo, sizeof lo);
	duration_format_ms(o->max, hi, sizeof hi);
	return err_set(e, ERR_USAGE, "invalid --%s \"%s\" (%s to %s)", o->name, d->text, lo, hi);
}

int opts_check(const struct opt *table, struct err *e)
{
	for (const struct opt *o = table; o->type != OPT_END; o++) {
		int v;

		if (o->type == OPT_DURATION && check_duration(o, e) < 0)
			return -1;
		if (o->type != OPT_INT || (!o->min && !o->max))
			continue;
		v = *(const int *)o->dest;
		if (v && (v < o->min || v > o->max))
			return err_set(e, ERR_USAGE, "--%s must be between %ld and %ld",
				       o->name, o->min, o->max);
	}
	return 0;
}

void opts_print_help(const struct opt *const *tables, void *out)
{
	FILE *f = out;

	for (; *tables; tables++) {
		const struct opt *o;
		for (o = *tables; o->type != OPT_END; o++) {
			char left[80], sh[8] = "    ";
			if (!o->help)
				continue;   /* hidden alias */
			if (o->shorthand)
				snprintf(sh, sizeof(sh), "-%c, ", o->shorthand);
			snprintf(left, sizeof(left), "%s--%s%s%s", sh, o->name,
				 o->type == OPT_BOOL ? "" : "=",
				 o->type == OPT_BOOL ? "" : (o->arg ? o->arg : "''"));
			fprintf(f, "    %-36s %s\n", left, o->help);
		}
	}
}
