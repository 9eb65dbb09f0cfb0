/* Shell completion candidates, kubectl's plugin protocol (kubectl
 * conventions §2): the words typed so far in, candidates ("value" or
 * "value<TAB>description") and a Cobra ShellCompDirective out.
 *
 * Static answers (subcommands, flags, -o formats, --color) come from
 * complete_plan() alone.  Answers that need the cluster or the kubeconfig
 * (namespaces, contexts, pods) are named in res->lookup; the caller fetches
 * them and hands the raw material to complete_add_*(), which filter, order
 * and format.  Nothing here prints.
 */
#ifndef COMPLETE_COMPLETE_H
#define COMPLETE_COMPLETE_H

#include <stddef.h>

#include "../util/opts.h"

/* Cobra ShellCompDirective bits. */
enum {
	COMPLETE_ERROR = 1,
	COMPLETE_NOSPACE = 2,
	COMPLETE_NOFILE = 4,
	COMPLETE_KEEPORDER = 32,
};

/* What the caller must look up to finish the answer. */
enum complete_lookup {
	LOOKUP_NONE = 0,
	LOOKUP_NAMESPACES,
	LOOKUP_CONTEXTS,
	LOOKUP_CLUSTERS,
	LOOKUP_USERS,
	LOOKUP_PODS,
	LOOKUP_CONTAINERS,          /* of res->pod, or of every worker pod */
};

struct complete_sub {
	const char *name;
	const char *summary;
	const struct opt *opts;     /* its own flags (offered before the globals); NULL: none */
	const char *outputs;        /* -o values, "json,yaml"; NULL: none */
	const char *const *args;    /* positional values (NULL-terminated) or NULL */
	int file_args;              /* positionals are paths: the shell's file completion */
	const struct opt *globals;  /* the global flags it takes; NULL: complete_plan's */
};

struct complete_result {
	char **items;               /* "value" or "value\tdescription" */
	size_t n, cap;
	int directive;
	enum complete_lookup lookup;
	const char *match;          /* prefix the looked-up values must have */
	const char *pod;            /* LOOKUP_CONTAINERS: the --pod typed, or NULL */
};

/* Fills res from the words (the plugin's arguments, the word being
 * completed last, "" after a space).  globals: the flags every subcommand
 * takes.  Release res with complete_release(). */
void complete_plan(int nwords, char *const *words,
		   const struct complete_sub *subs, size_t nsubs,
		   const struct opt *globals, struct complete_result *res);
void complete_release(struct complete_result *res);

/* The value the words give a flag (its last occurrence, any spelling:
 * --name V, --name=V, -x V, -xV, -x=V), or NULL. The current (last) word is
 * not looked at: it is still being typed. */
const char *complete_flag_value(int nwords, char *const *words,
				const struct opt *flag);

/* Adds value (with an optional description) when it starts with
 * res->match. */
void complete_add(struct complete_result *res, const char *value,
		  const char *desc);

/* From a NamespaceList (or any List) JSON: every items[].metadata.name. */
int complete_add_names_json(struct complete_result *res, const char *json);

/* From a Pod JSON: its containers (init containers that keep running,
 * restartPolicy Always, too); from a PodList: the containers of the Dynamo
 * workers, each name once. */
int complete_add_containers_json(struct complete_result *res, const char *json);

/* From a PodList JSON: Dynamo workers first (described by their role),
 * then the other pods; each group in the server's order. */
int complete_add_pods_json(struct complete_result *res, const char *json);

#endif
