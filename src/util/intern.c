/* A chained hash set of reference-counted blocks under one mutex.  The
 * block's bytes follow its node, so the pointer handed out finds its node
 * by subtraction (no second lookup on unref). */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/intern.h"
#include "util/xalloc.h"

struct node {
	struct node *next;
	size_t len, refs;
	uint64_t hash;
	_Alignas(max_align_t) unsigned char bytes[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct node **buckets;
static size_t nbuckets, count;

/* FNV-1a's step, 8 bytes at a time with a shift that carries the high
 * bits down (the bucket is the low bits), then byte by byte: a pod's
 * result arrays (~12 KB with the GPU-NIC map) were hashed a byte a step,
 * ~0.1 M instructions a pod (issue 46).  memcpy: unaligned-safe loads. */
static uint64_t hash_of(const unsigned char *p, size_t n)
{
	const uint64_t prime = 1099511628211ull;
	uint64_t h = 1469598103934665603ull, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, sizeof w);
		h = (h ^ w) * prime;
		h ^= h >> 32;
	}
	while (n--)
		h = (h ^ *p++) * prime;
	return h ^ (h >> 29);
}

static struct node *node_of(const void *p)
{
	return (struct node *)((unsigned char *)p - offsetof(struct node, bytes));
}

/* Doubles the table once it holds as many blocks as buckets. */
static void grow(void)
{
	size_t nb = nbuckets ? nbuckets * 2 : 256;
	struct node **b = xcalloc(nb, sizeof(*b));

	for (size_t i = 0; i < nbuckets; i++)
		for (struct node *x = buckets[i], *next; x; x = next) {
			next = x->next;
			x->next = b[x->hash & (nb - 1)];
			b[x->hash & (nb - 1)] = x;
		}
	free(buckets);
	buckets = b;
	nbuckets = nb;
}

const void *intern_bytes(const void *p, size_t n, int *fresh)
{
	uint64_t h = hash_of(p, n);
	struct node *x;

	pthread_mutex_lock(&lock);
	if (count >= nbuckets)
		grow();
	for (x = buckets[h & (nbuckets - 1)]; x; x = x->next)
		if (x->hash == h && x->len == n && !memcmp(x->bytes, p, n))
			break;
	if (fresh)
		*fresh = !x;
	if (x) {
		x->refs++;
	} else {
		x = xmalloc(sizeof(*x) + (n ? n : 1));
		memcpy(x->bytes, p, n);
		x->len = n, x->refs = 1, x->hash = h;
		x->next = buckets[h & (nbuckets - 1)];
		buckets[h & (nbuckets - 1)] = x;
		count++;
	}
	pthread_mutex_unlock(&lock);
	return x->bytes;
}

const char *intern_str(const char *s)
{
	return s ? intern_bytes(s, strlen(s) + 1, NULL) : NULL;
}

void intern_ref(const void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&lock);
	node_of(p)->refs++;
	pthread_mutex_unlock(&lock);
}

void intern_unref(const void *p, void (*fini)(const void *p, size_t n))
{
	struct node *x, **at;

	if (!p)
		return;
	x = node_of(p);
	pthread_mutex_lock(&lock);
	if (--x->refs) {
		pthread_mutex_unlock(&lock);
		return;
	}
	for (at = &buckets[x->hash & (nbuckets - 1)]; *at != x; at = &(*at)->next)
		;
	*at = x->next;
	count--;
	pthread_mutex_unlock(&lock);
	if (fini)
		fini(x->bytes, x->len);
	free(x);
}

size_t intern_count(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = count;
	pthread_mutex_unlock(&lock);
	return n;
}
