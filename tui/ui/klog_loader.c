/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../source/system.h"
#include "klog_loader.h"

struct klog_loader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	const char *root, *file;
	unsigned extra_ms;
	bool stop, want; /* under lock */
	unsigned gen;	 /* under lock */
	bool have;	 /* under lock, with k */
	struct klog *k;
	/* This boot's changes of power source, read with a log in which
	 * the watchdog dropped the TSC (under lock, with k). */
	struct power_log pl;
	/* The thread's own: the file as last read. */
	bool seen;
	struct stat last;
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void *worker(void *arg)
{
	struct klog_loader *l = arg;
	struct klog *k = malloc(sizeof(*k)), *t;
	struct power_log pl;
	char why[160];
	struct stat st;
	bool have, known;

	pthread_mutex_lock(&l->lock);
	while (k && !l->stop) {
		while (!l->want && !l->stop)
			pthread_cond_wait(&l->wake, &l->lock);
		if (l->stop)
			break;
		l->want = false;
		pthread_mutex_unlock(&l->lock);
		/* Taken before reading: a change while reading is seen at the
		 * next request. */
		known = l->file && stat(l->file, &st) == 0;
		if (known && l->seen && same_file(&st, &l->last)) {
			pthread_mutex_lock(&l->lock);
			continue;
		}
		have = system_read_klog(l->root, l->file, k, why, sizeof(why));
		memset(&pl, 0, sizeof(pl));
		if (have)
			system_read_powerlog(l->root, l->file, k, &pl);
		l->seen = known; /* read, or refused: the same again */
		if (known)
			l->last = st;
		pthread_mutex_lock(&l->lock);
		if (l->extra_ms) {
			/* Tests: a read that takes this long, cut short by
			 * stop. */
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += l->extra_ms / 1000;
			until.tv_nsec += (long)(l->extra_ms % 1000) * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			while (!l->stop &&
			       pthread_cond_timedwait(&l->wake, &l->lock,
						      &until) == 0)
				;
			if (l->stop)
				break;
		}
		t = l->k;
		l->k = k;
		k = t;
		l->pl = pl;
		l->have = have;
		l->gen++;
	}
	pthread_mutex_unlock(&l->lock);
	free(k);
	return NULL;
}

struct klog_loader *klog_loader_start(const char *root, const char *file,
				      unsigned extra_ms)
{
	struct klog_loader *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->root = root;
	l->file = file;
	l->extra_ms = extra_ms;
	l->want = true;
	l->k = calloc(1, sizeof(*l->k));
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	if (!l->k || pthread_create(&l->thread, NULL, worker, l) != 0) {
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->wake);
		free(l->k);
		free(l);
		return NULL;
	}
	return l;
}

void klog_loader_reload(struct klog_loader *l)
{
	pthread_mutex_lock(&l->lock);
	l->want = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

unsigned klog_loader_generation(struct klog_loader *l)
{
	unsigned g;

	pthread_mutex_lock(&l->lock);
	g = l->gen;
	pthread_mutex_unlock(&l->lock);
	return g;
}

unsigned klog_loader_result(struct klog_loader *l, struct klog *out,
			    struct power_log *pl, bool *have)
{
	unsigned g;

	pthread_mutex_lock(&l->lock);
	g = l->gen;
	*have = g && l->have;
	if (g) {
		*out = *l->k;
		*pl = l->pl;
	}
	pthread_mutex_unlock(&l->lock);
	return g;
}

void klog_loader_stop(struct klog_loader *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	free(l->k);
	free(l);
}
