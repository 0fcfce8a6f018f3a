/* The end of a guarded run (common/handoff.c): the hang guard's pending
 * goes after the next loader's LoadImage and right before its StartImage,
 * and stays when the run wrote without recording synced or left an AP
 * unknown.  The fake records the order of the stage's operations. */
#include "cm.h"
#include <string.h>

#include "../../common/handoff.h"

struct fake {
	char trace[128];
	bool synced_ok;
	uint64_t load_status;
};

static void step(struct fake *f, const char *what)
{
	if (f->trace[0])
		strcat(f->trace, " ");
	strcat(f->trace, what);
}

static bool mark_synced(void *ctx)
{
	struct fake *f = ctx;

	step(f, f->synced_ok ? "synced" : "synced-failed");
	return f->synced_ok;
}

static void release(void *ctx)
{
	step(ctx, "release");
}

static void close_files(void *ctx)
{
	step(ctx, "close");
}

static uint64_t load(void *ctx)
{
	struct fake *f = ctx;

	step(f, "load");
	return f->load_status;
}

static uint64_t start(void *ctx)
{
	step(ctx, "start");
	return 0;
}

static struct tsc_handoff_ops ops_for(struct fake *f)
{
	struct tsc_handoff_ops o = {
		.ctx = f,
		.mark_synced = mark_synced,
		.release = release,
		.close = close_files,
		.load = load,
		.start = start,
	};
	return o;
}

/* Firmware entry: pending goes once the loader is loaded, right before
 * it starts (a hang in the connects or the load still trips). */
static void chain_release_between_load_and_start(void **s)
{
	struct fake f = { .synced_ok = true };
	struct tsc_handoff_ops o = ops_for(&f);
	struct tsc_handoff h;

	(void)s;
	tsc_handoff_init(&h, &o);
	assert_int_equal(tsc_handoff_returned(&h, true, false), 0);
	assert_int_equal(tsc_handoff_chain(&h), 0);
	assert_string_equal(f.trace, "synced load release close start");
	/* The stage's own last call after a chain is a no-op. */
	tsc_handoff_release(&h);
	assert_string_equal(f.trace, "synced load release close start");
}

/* A next= that cannot be loaded: nothing was started, pending goes before
 * the stage returns the load's failure to the boot manager. */
static void chain_load_fails(void **s)
{
	struct fake f = { .synced_ok = true, .load_status = 14 };
	struct tsc_handoff_ops o = ops_for(&f);
	struct tsc_handoff h;

	(void)s;
	tsc_handoff_init(&h, &o);
	tsc_handoff_returned(&h, false, false);
	assert_int_equal(tsc_handoff_chain(&h), 14);
	assert_string_equal(f.trace, "load release close");
}

/* The run wrote and synced could not be created: pending stays (the next
 * boot must still know this one did not finish), on both paths. */
static void failed_synced_keeps_pending(void **s)
{
	struct fake f = { .synced_ok = false };
	struct tsc_handoff_ops o = ops_for(&f);
	struct tsc_handoff h;

	(void)s;
	tsc_handoff_init(&h, &o);
	assert_int_equal(tsc_handoff_returned(&h, true, false),
			 TSC_KEEP_UNMARKED);
	tsc_handoff_release(&h);
	assert_string_equal(f.trace, "synced-failed close");

	memset(f.trace, 0, sizeof(f.trace));
	tsc_handoff_init(&h, &o);
	tsc_handoff_returned(&h, true, false);
	assert_int_equal(tsc_handoff_chain(&h), 0);
	assert_string_equal(f.trace, "synced-failed load close start");
}

/* No write: no synced to make; nothing unknown, so pending goes. */
static void measure_run_releases(void **s)
{
	struct fake f = { .synced_ok = false };
	struct tsc_handoff_ops o = ops_for(&f);
	struct tsc_handoff h;

	(void)s;
	tsc_handoff_init(&h, &o);
	assert_int_equal(tsc_handoff_returned(&h, false, false), 0);
	tsc_handoff_release(&h);
	tsc_handoff_release(&h);
	assert_string_equal(f.trace, "release close");
}

/* An AP stopped or still in the stage's code keeps pending even after a
 * recorded write; so does a reason of the caller's. */
static void unknown_ap_or_caller_keeps(void **s)
{
	struct fake f = { .synced_ok = true };
	struct tsc_handoff_ops o = ops_for(&f);
	struct tsc_handoff h;

	(void)s;
	tsc_handoff_init(&h, &o);
	assert_int_equal(tsc_handoff_returned(&h, true, true),
			 TSC_KEEP_UNKNOWN_AP);
	tsc_handoff_release(&h);
	assert_string_equal(f.trace, "synced close");

	memset(f.trace, 0, sizeof(f.trace));
	tsc_handoff_init(&h, &o);
	tsc_handoff_keep(&h);
	tsc_handoff_returned(&h, false, false);
	tsc_handoff_release(&h);
	assert_string_equal(f.trace, "close");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chain_release_between_load_and_start),
		cmocka_unit_test(chain_load_fails),
		cmocka_unit_test(failed_synced_keeps_pending),
		cmocka_unit_test(measure_run_releases),
		cmocka_unit_test(unknown_ap_or_caller_keeps),
	};
	return cmocka_run_group_tests_name("handoff", tests, NULL, NULL);
}
