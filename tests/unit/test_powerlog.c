/* This boot's changes of power source: upower's history lines, TLP's and
 * upowerd's journal lines, upower's battery ids (source/powerlog.h). */
#include "cm.h"
#include <string.h>

#include "../../tui/source/powerlog.h"

static void upower_states(void **s)
{
	(void)s;
	assert_int_equal(powerlog_upower_state("charging", 8), 1);
	assert_int_equal(powerlog_upower_state("fully-charged", 13), 1);
	assert_int_equal(powerlog_upower_state("pending-charge", 14), 1);
	assert_int_equal(powerlog_upower_state("discharging", 11), 0);
	assert_int_equal(powerlog_upower_state("empty", 5), 0);
	assert_int_equal(powerlog_upower_state("unknown", 7), -1);
	assert_int_equal(powerlog_upower_state("pending-discharge", 17), -1);
	/* Only the whole word: a prefix or a longer word is neither. */
	assert_int_equal(powerlog_upower_state("charging", 5), -1);
	assert_int_equal(powerlog_upower_state("chargingX", 9), -1);
}

/* upower's own lines: a change is a state of the other kind than the
 * last known one; unknown states and lines that do not parse pass by. */
static void upower_changes(void **s)
{
	static const char text[] = "1764000050\t9.100\tdischarging\n"
				   "1764000100\t9.000\tdischarging\n"
				   "1764000200\t20.000\tcharging\n"
				   "1764000210\t0.000\tunknown\n"
				   "1764000300\t100.000\tfully-charged\n"
				   "not a line\n"
				   "17640x0350\t1.0\tdischarging\n"
				   "1764000360\t1.0\n"
				   "\t1.0\tdischarging\n"
				   "99999999999999999999999\t1\tdischarging\n"
				   "1764000400\t99.000\tdischarging\n"
				   "1764000500\t98.000\tpending-charge";
	int64_t when[8];
	bool mains[8];
	size_t n;

	(void)s;
	n = powerlog_upower_changes(text, strlen(text), when, mains, 8);
	assert_int_equal(n, 3);
	assert_int_equal(when[0], 1764000200);
	assert_true(mains[0]);
	assert_int_equal(when[1], 1764000400);
	assert_false(mains[1]);
	/* The last line has no newline. */
	assert_int_equal(when[2], 1764000500);
	assert_true(mains[2]);
	/* At most cap, and nothing read past len. */
	n = powerlog_upower_changes(text, strlen(text), when, mains, 1);
	assert_int_equal(n, 1);
	n = powerlog_upower_changes(text, 90, when, mains, 8);
	assert_int_equal(n, 1);
	assert_int_equal(powerlog_upower_changes("", 0, when, mains, 8), 0);
}

static void journal_states(void **s)
{
	(void)s;
	assert_int_equal(powerlog_journal_state("tlp", "power_source=ac(x)"),
			 1);
	assert_int_equal(powerlog_journal_state("tlp", "power_source=bat(x)"),
			 0);
	assert_int_equal(powerlog_journal_state("tlp", "Applying power save"),
			 -1);
	assert_int_equal(powerlog_journal_state(
				 "upowerd", "UPower-DEBUG: on_battery = yes"),
			 0);
	assert_int_equal(powerlog_journal_state("upowerd", "on_battery = no"),
			 1);
	/* Another program's words are not its. */
	assert_int_equal(powerlog_journal_state("kernel", "power_source=ac"),
			 -1);
	assert_int_equal(powerlog_journal_state("upowerd", "power_source=ac"),
			 -1);
}

static void upower_ids(void **s)
{
	char id[64];

	(void)s;
	powerlog_upower_id("MX Master 3", id, sizeof(id));
	assert_string_equal(id, "MX_Master_3");
	powerlog_upower_id("a\\b\tc\"d?e'f g/h,i.j", id, sizeof(id));
	assert_string_equal(id, "a_b_c_d_e_f_g_h_i_j");
	assert_true(powerlog_upower_file("history-rate-FRANGWAT01-55-1.dat",
					 "FRANGWAT01"));
	assert_true(powerlog_upower_file("history-charge-FRANGWAT01.dat",
					 "FRANGWAT01"));
	/* Another battery whose model starts the same, another kind of
	 * history, a file that is not upower's, no model. */
	assert_false(powerlog_upower_file("history-rate-FRANGWAT012-5.dat",
					  "FRANGWAT01"));
	assert_false(powerlog_upower_file("history-time-full-FRANGWAT01-55.dat",
					  "FRANGWAT01"));
	assert_false(powerlog_upower_file("history-rate-FRANGWAT01.dat.tmp",
					  "FRANGWAT01"));
	assert_false(powerlog_upower_file("history-rate-.dat", ""));
}

static void last_before(void **s)
{
	struct power_log l = { .n = 3,
			       .ch = { { 10.0, true, "TLP" },
				       { 20.0, false, "TLP" },
				       { 30.0, true, "TLP" } } };

	(void)s;
	assert_null(powerlog_last_before(&l, 9.9));
	assert_true(powerlog_last_before(&l, 10.0) == &l.ch[0]);
	assert_true(powerlog_last_before(&l, 29.9) == &l.ch[1]);
	assert_true(powerlog_last_before(&l, 1e9) == &l.ch[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(upower_states),
		cmocka_unit_test(upower_changes),
		cmocka_unit_test(journal_states),
		cmocka_unit_test(upower_ids),
		cmocka_unit_test(last_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
