/* Helpers shared by the parsers in src/probe (not for use outside it). */
#ifndef PROBE_INTERNAL_H
#define PROBE_INTERNAL_H

#include "facts.h"
#include "ptext.h"

/* RDMA lists (rdma.c). */
struct probe_rdma_dev *rdma_dev_get(struct probe_rdma_list *l, struct pslice name);
struct probe_rdma_port *rdma_port_get(struct probe_rdma_dev *d, long num);
void rdma_port_reset(struct probe_rdma_port *p, int num);
enum probe_port_state rdma_state_parse(struct pslice v);
enum probe_phys_state rdma_phys_parse(struct pslice v);
enum probe_link_layer rdma_ll_parse(struct pslice v);
/* "400 Gb/sec (4X NDR)" or "400": Gb/s and the text in parentheses. */
void rdma_rate_parse(struct pslice v, struct probe_rdma_port *p);
/* "MT4129" or "4129". */
int rdma_part_id(struct pslice v);

/* The state a `state=` word names: sections trtllm_engine and
 * sglang_config (engine.c). */
enum probe_engine_state probe_engine_state_word(struct pslice w);

/* Text between the first pair of single quotes ("CA 'mlx5_0'"). */
int quoted(struct pslice line, struct pslice *out);

#endif
