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
#define PROBE_MAX_LDCONF_FILES 16       /* as probe.sh reads them */
#define PROBE_MAX_LDCONF_LINES 1024     /* 64 a file */
#define PROBE_MAX_LDCACHE_DIRS 64

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

/* One line of an ld.so.conf file, and the file it came from. */
struct probe_ldconf_line {
	int file;                       /* index in probe_stack.ldconf_file */
	char text[256];
};

/* One directory of ld.so.cache in ldconfig's order, and the conf file that
 * named it. */
struct probe_ldcache_dir {
	char dir[256];
	char from[256];
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
	/* /etc/ld.so.conf and the files its includes name, as read (owned
	 * arrays), and the directories ldconfig builds ld.so.cache from, in
	 * its order (probe_stack_ldcache, owned); ldconf_reported: the probe
	 * printed an ldconf_file= line. */
	int ldconf_reported;
	char (*ldconf_file)[256];
	int nldconf_files, ldconf_files_dropped;
	struct probe_ldconf_line *ldconf_line;
	int nldconf_lines, ldconf_lines_dropped;
	struct probe_ldcache_dir *ldcache;
	int nldcache, ldcache_dropped;
};

int probe_parse_nixl_stack(const char *t, size_t n, struct probe_stack *s);
/* Rebuilds s->ldcache from s->ldconf_*: glibc ldconfig's parse_conf from
 * /etc/ld.so.conf (probe/ldconf.c); probe_parse_nixl_stack calls it. */
void probe_stack_ldcache(struct probe_stack *s);
void probe_stack_free(struct probe_stack *s);

#endif
