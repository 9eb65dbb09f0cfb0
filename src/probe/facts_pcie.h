/* Part of facts.h (which includes it; include facts.h, not this): the
 * PCIe links from each RDMA device and each GPU up to its root port
 * (section pcie_links, issue 45 point 3; docs/checks.md O4), as the
 * kernel's drivers/pci/pci-sysfs.c shows them: current_link_speed/width
 * and max_link_speed/width of every device on the way. */
#ifndef DI_PROBE_FACTS_PCIE_H
#define DI_PROBE_FACTS_PCIE_H

#include <stddef.h>

#define PROBE_MAX_PCIE_PATHS 48     /* 32 NICs + 16 GPUs, as the probe caps them */
#define PROBE_MAX_PCIE_HOPS 8

/* One device on the way; speeds in tenths of GT/s (32.0 GT/s: 320), 0
 * and widths 0 when not read. */
struct probe_pcie_hop {
	char bdf[16];               /* "0000:1b:00.0" */
	int cur_speed, max_speed;
	int cur_width, max_width;
};

/* One endpoint's way up: hop[0] the endpoint, the last its root port. */
struct probe_pcie_path {
	int gpu;                    /* 1: a GPU (nvidia driver), 0: an RDMA device */
	char name[32];              /* "mlx5_0", or the GPU's BDF */
	int nhops;
	struct probe_pcie_hop hop[PROBE_MAX_PCIE_HOPS];
};

struct probe_pcie {
	struct probe_src src;       /* NOT_LOOKED: a probe without the section */
	size_t n;
	size_t dropped;             /* lines past the caps or malformed */
	struct probe_pcie_path path[PROBE_MAX_PCIE_PATHS];
};

/* Section pcie_links: "link gpu|nic NAME BDF CUR_SPEED CUR_WIDTH
 * MAX_SPEED MAX_WIDTH" ("-": not read); anything else ignored.  Returns
 * the hops taken. */
int probe_parse_pcie(const char *t, size_t n, struct probe_pcie *p);

#endif
