/* Part of facts.h (which includes it; include facts.h, not this): the parser of each tool output,
 * apart to keep facts.h under the line cap. */
#ifndef DI_PROBE_FACTS_PARSE_H
#define DI_PROBE_FACTS_PARSE_H

/* ---- One parser per tool output --------------------------------------
 *
 * Pure functions: bytes in, facts out, no I/O.  They accept what the tool
 * prints (tabs or spaces, CRLF, missing final newline, excerpts cut off
 * anywhere, prompt lines around it) and ignore lines they do not know.
 * They fill data fields only, never the probe_src of the part they fill
 * (probe_parse_report does that from the section's rc).  Each returns the
 * number of top-level items it found (devices, GPUs, entries...). */

/* "dev/attr=value" lines (see probe.sh, section sysfs_ib). */
int probe_parse_sysfs_ib(const char *t, size_t n, struct probe_rdma_list *l);
int probe_parse_ibstat(const char *t, size_t n, struct probe_rdma_list *l);
int probe_parse_ibstatus(const char *t, size_t n, struct probe_rdma_list *l);
int probe_parse_ibv_devinfo(const char *t, size_t n, struct probe_rdma_list *l);
int probe_parse_ibdev2netdev(const char *t, size_t n, struct probe_rdma_list *l);
/* ip -o -4 addr show / ip -4 route show: lines it cannot read are skipped;
 * more than PROBE_MAX_IP4 entries are counted in dropped. */
int probe_parse_ip_addr(const char *t, size_t n, struct probe_ipnet *ip);
int probe_parse_ip_route(const char *t, size_t n, struct probe_ipnet *ip);
/* /proc/net/route (Iface Destination Gateway Flags ... Mask ...: hex of
 * the address bytes as a little-endian pod prints them); appended to the
 * routes as ip -4 route would list them. */
int probe_parse_proc_route(const char *t, size_t n, struct probe_ipnet *ip);
/* "uverbs0 c" lines (section dev_infiniband). */
int probe_parse_dev_ib(const char *t, size_t n, struct probe_dev_ib *d);
/* Section verbs_libs ("lib=PATH", "provider=libmlx5-rdmav34.so",
 * "driver=mlx5.driver"); the number of providers. */
int probe_parse_verbs_libs(const char *t, size_t n, struct probe_verbs_libs *v);

/* /proc/modules or lsmod lines. */
int probe_parse_modules(const char *t, size_t n, struct probe_modules *m);
/* "name version=..." lines (section sys_module). */
int probe_parse_sys_module(const char *t, size_t n, struct probe_modules *m);
/* Section memory_peers ("nv_mem version=...") and gdrdrv ("dev=char",
 * "proc_devices=yes|no"). */
int probe_parse_memory_peers(const char *t, size_t n, struct probe_modules *m);
int probe_parse_gdrdrv(const char *t, size_t n, struct probe_modules *m);
int probe_parse_nvdriver(const char *t, size_t n, struct probe_nvdriver *d);
/* Section dev_nvidia: "nvidiactl=char|other", "gpus=N". */
int probe_parse_nvdev(const char *t, size_t n, struct probe_nvdev *d);

int probe_parse_nvsmi_q(const char *t, size_t n, struct probe_nvsmi *s);
int probe_parse_topo(const char *t, size_t n, struct probe_topo *tp);
int probe_parse_nvlink(const char *t, size_t n, struct probe_nvlink *nv);

int probe_parse_ucx_v(const char *t, size_t n, struct probe_ucx *u);
int probe_parse_ucx_d(const char *t, size_t n, struct probe_ucx *u);

/* fi_info -p efa output, with libfabric log lines mixed in. */
int probe_parse_fi_info(const char *t, size_t n, struct probe_fi *fi);

int probe_parse_limits(const char *t, size_t n, struct probe_limits *l);
int probe_parse_status_caps(const char *t, size_t n, struct probe_limits *l);

/* Sections nixl_plugins ("prefix=", "dir=", "wheel_dir=", "plugin="), nixl_tools
 * ("nixlbench=/path" or "nixlbench="), nixl_python ("module=",
 * "version=DIST VERSION"), nixl_versions (raw lines). */
int probe_parse_nixl_plugins(const char *t, size_t n, struct probe_nixl *x);
int probe_parse_nixl_tools(const char *t, size_t n, struct probe_nixl *x);
int probe_parse_nixl_python(const char *t, size_t n, struct probe_nixl *x);
int probe_parse_nixl_versions(const char *t, size_t n, struct probe_nixl *x);

/* NAME=VALUE lines; lines whose name is not a transport variable are
 * dropped again here, so a bad probe cannot smuggle other variables in. */
int probe_parse_env(const char *t, size_t n, struct probe_env *env);
/* 1 if NAME is one of the transport variables the probe may report. */
int probe_env_allowed(const char *name, size_t len);

int probe_parse_kernel(const char *t, size_t n, struct probe_kernel *k);

/* host.c: sections pci ("ADDR VENDOR DEVICE CLASS", "devices=N",
 * "truncated=1"), shm (df -Pk), meminfo, nixl_ucx_ldd ("plugin=PATH",
 * then ldd lines). */
int probe_parse_pci(const char *t, size_t n, struct probe_pci *p);
/* The vm section; 1 when DMI was read. */
int probe_parse_vm(const char *t, size_t n, struct probe_vm *v);
int probe_parse_shm(const char *t, size_t n, struct probe_shm *s);
int probe_parse_meminfo(const char *t, size_t n, struct probe_meminfo *m);
int probe_parse_ucx_ldd(const char *t, size_t n, struct probe_ucx_ldd *l);

/* ucx.c: section ucx_modules ("libucs_dir=", "wheel_dir=" or "env_dir="
 * PATH, then "module=libuct_ib.so.0.0.0" lines); returns the modules. */
int probe_parse_ucx_modules(const char *t, size_t n, struct probe_ucx_modules *m);

/* mooncake.c: section mooncake_dist ("dist=DIR", "version=V" after it);
 * returns the distributions listed. */
int probe_parse_mooncake(const char *t, size_t n, struct probe_mooncake *m);

#endif
