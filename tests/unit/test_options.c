/* Stage options: modes, ESP config, next entry, sim tokens, the image path
 * the UEFI Shell passes, and unknown tokens. */
#include "cm.h"
#include <string.h>

#include "../../common/options.h"

static struct tsc_options o;

static void parse(const char *s, bool sim)
{
	tsc_options_init(&o);
	tsc_options_parse(&o, s, strlen(s), sim);
}

static void defaults(void **s)
{
	(void)s;
	parse("", false);
	assert_int_equal(o.mode, TSC_MODE_MEASURE);
	assert_false(o.mode_given);
	assert_int_equal(o.nignored, 0);
}

static void known_tokens(void **s)
{
	(void)s;
	parse("mode=sync allow=any-cpu config=esp next=Boot000A", false);
	assert_int_equal(o.mode, TSC_MODE_SYNC);
	assert_true(o.mode_given);
	assert_true(o.allow_any_cpu);
	assert_true(o.config_esp);
	assert_true(o.has_next);
	assert_int_equal(o.next, 0x000a);
	assert_int_equal(o.nignored, 0);
	assert_false(o.guard_grub);
	parse("mode=off", false);
	assert_int_equal(o.mode, TSC_MODE_OFF);
	/* The GRUB block's channel; a near miss is reported, not taken. */
	parse("mode=sync guard=grub", false);
	assert_true(o.guard_grub);
	assert_int_equal(o.nignored, 0);
	parse("guard=grubx", false);
	assert_false(o.guard_grub);
	assert_int_equal(o.nignored, 1);
}

static void unknown_reported(void **s)
{
	(void)s;
	parse("mode=sync foo=bar mode=fast next=Boot12 frobnicate", false);
	assert_int_equal(o.mode, TSC_MODE_SYNC);
	assert_int_equal(o.nignored, 4);
	assert_string_equal(o.ignored,
			    "foo=bar mode=fast next=Boot12 frobnicate");
}

/* The UEFI Shell passes the image path first; GRUB does not. */
static void image_path_skipped(void **s)
{
	(void)s;
	parse("FS0:\\EFI\\tsctui\\tsctui.efi mode=sync", false);
	assert_int_equal(o.mode, TSC_MODE_SYNC);
	assert_int_equal(o.nignored, 0);
	parse("tsctui-sim.EFI mode=off", false);
	assert_int_equal(o.mode, TSC_MODE_OFF);
	assert_int_equal(o.nignored, 0);
	/* Only the first token. */
	parse("mode=sync \\EFI\\x.efi", false);
	assert_int_equal(o.nignored, 1);
}

static void sim_tokens(void **s)
{
	(void)s;
	parse("sim.offset.0=-6815086010,sim.offset.31=16 sim.jitter=20 "
	      "sim.dead=2 sim.dead=5 sim.hang=1 sim.late=3 sim.late=4@2 "
	      "sim.runtimeout=1000 sim.cachewait=0",
	      true);
	assert_int_equal(o.sim_run_timeout_ms, 1000);
	assert_true(o.sim_no_cache_wait);
	assert_int_equal(o.sim_late[3], 1);
	assert_int_equal(o.sim_late[4], 2);
	assert_int_equal(o.sim_late[5], 0);
	assert_true(o.sim_any);
	assert_int_equal(o.sim_offset[0], -6815086010LL);
	assert_int_equal(o.sim_offset[31], 16);
	assert_int_equal(o.sim_jitter, 20);
	assert_true(tsc_options_dead(&o, 2));
	assert_true(tsc_options_dead(&o, 5));
	assert_false(tsc_options_dead(&o, 3));
	assert_true(o.sim_hang);
	assert_int_equal(o.nignored, 0);
	parse("sim.offset.256=1 sim.offset.x=1 sim.jitter=-1 sim.dead=300 "
	      "sim.hang=2 sim.offset.1=abc sim.nothing=1 sim.late=256 "
	      "sim.late=2@0 sim.late=2@ sim.late=@2 sim.late=2@256 "
	      "sim.runtimeout=99 sim.runtimeout=60001 sim.cachewait=2",
	      true);
	assert_int_equal(o.nignored, 15);
	assert_false(o.sim_no_cache_wait);
	assert_int_equal(o.sim_run_timeout_ms, 0);
	assert_false(o.sim_any);
}

/* A release build ignores sim.* and says so. */
static void release_ignores_sim(void **s)
{
	(void)s;
	parse("mode=sync sim.offset.0=-5 sim.hang=1", false);
	assert_true(o.release_sim_seen);
	assert_false(o.sim_any);
	assert_false(o.sim_hang);
	assert_int_equal(o.sim_offset[0], 0);
	assert_int_equal(o.nignored, 2);
}

/* ESP file, then load options: tokens accumulate, the last mode wins. */
static void accumulate(void **s)
{
	(void)s;
	tsc_options_init(&o);
	tsc_options_parse(&o, "mode=measure allow=any-cpu\n", 27, false);
	tsc_options_parse(&o, "config=esp next=Boot0001 mode=sync", 34, false);
	assert_int_equal(o.mode, TSC_MODE_SYNC);
	assert_true(o.allow_any_cpu);
	assert_true(o.has_next);
}

static void load_options_utf16(void **s)
{
	static const uint16_t u[] = { 'm', 'o', 'd', 'e', '=',	  's',
				      'y', 'n', 'c', ' ', 0x00e9, 0 };
	char out[64];

	(void)s;
	assert_int_equal(
		tsc_options_from_load_options(u, sizeof(u), out, sizeof(out)),
		11);
	assert_string_equal(out, "mode=sync ?");
	assert_int_equal(tsc_options_from_load_options("config=esp", 10, out,
						       sizeof(out)),
			 10);
	assert_string_equal(out, "config=esp");
	/* Odd size and a tiny buffer. */
	assert_int_equal(tsc_options_from_load_options(u, 5, out, 2), 1);
	assert_int_equal(tsc_options_from_load_options(u, 0, out, 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(known_tokens),
		cmocka_unit_test(unknown_reported),
		cmocka_unit_test(image_path_skipped),
		cmocka_unit_test(sim_tokens),
		cmocka_unit_test(release_ignores_sim),
		cmocka_unit_test(accumulate),
		cmocka_unit_test(load_options_utf16),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
