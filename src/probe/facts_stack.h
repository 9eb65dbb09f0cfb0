/* Part of facts.h (which includes it; include facts.h, not this): the
 * facts of section nixl_stack, apart only to keep facts.h readable. */
#ifndef DI_PROBE_FACTS_STACK_H
#define DI_PROBE_FACTS_STACK_H

/* ---- The NIXL/UCX copies the loader can take (F6-F8) ------------------ */

#define PROBE_MAX_STACK_COPIES 96
#define PROBE_MAX_STACK_ELFS 8
#define PROBE_MAX_ELF_NEEDED 16
#define PROBE_MAX_ELF_LDD 16
#define PROBE_MAX_ELF_UNDEF 8

enum probe_elf_tool { PROBE_ELF_NONE = 0, PROBE_ELF_READELF, PROBE_ELF_OBJDUMP };

/* One "NAME => PATH" (or "=> not found") line of ldd -r. */
struct probe_ldd_line {
	char name[64];                  /* "libnixl.so", "libcudart.so.12" */
	char path[256];                 /* "" when not found */
	int not_found;
};

/* One NIXL object (a UCX plugin, TensorRT-LLM's NIXL wrapper, the Python
 * bindings, nixl_ep): its dynamic section and ldd -r. */
struct probe_stack_elf {
	char path[256];
	int elf_rc;                     /* readelf/objdump status, -1 not reported */
	int nneeded, needed_dropped;
	char needed[PROBE_MAX_ELF_NEEDED][64];
	int has_rpath, has_runpath;     /* DT_RPATH / DT_RUNPATH present */
	char rpath[512], runpath[512];  /* as written, $ORIGIN unexpanded */
	int ldd_rc;                     /* ldd -r status, -1 not reported */
	int nldd, ldd_dropped;
	struct probe_ldd_line ldd[PROBE_MAX_ELF_LDD];
	int nundef, undef_dropped;      /* "undefined symbol: NAME" lines */
	char undef[PROBE_MAX_ELF_UNDEF][128];
};

/* Section nixl_stack (probe.sh): the main process's LD_LIBRARY_PATH and
 * LD_PRELOAD, every copy found, and the objects read.  copy and elf are
 * heap arrays owned by the struct (probe_facts_release frees them). */
struct probe_stack {
	struct probe_src src;
	char lpath[1024];               /* LD_LIBRARY_PATH of PID 1 */
	char preload[512];              /* LD_PRELOAD of PID 1 */
	enum probe_elf_tool tool;
	int tool_reported;              /* an elf_tool= line was seen */
	char **copy;                    /* owned: paths as listed */
	int ncopies, copies_dropped;
	struct probe_stack_elf *elf;    /* owned array of nelfs */
	int nelfs, elfs_dropped;
};

int probe_parse_nixl_stack(const char *t, size_t n, struct probe_stack *s);
void probe_stack_free(struct probe_stack *s);

#endif
