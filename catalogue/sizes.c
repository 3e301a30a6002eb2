/* pldkit catalogue: the sizes of the public structs (pld_sizeof), so that
 * a binding that mirrors a struct checks its layout against the library
 * it loaded (python/pldkit/_lib.py does at import). */
#include <pldkit/accountant.h>
#include <pldkit/allocation.h>
#include <pldkit/dpevent.h>
#include <pldkit/event.h>
#include <pldkit/ledger.h>
#include <pldkit/merge.h>
#include <pldkit/participation.h>
#include <pldkit/splitting.h>
#include <pldkit/bounded.h>
#include <pldkit/mspafl.h>
#include <pldkit/select.h>

#include <string.h>

static const struct {
  const char *name;
  size_t size;
} sizes[] = {
    {"pld_result", sizeof(pld_result)},
    {"pld_allocation_block", sizeof(pld_allocation_block)},
    {"pld_dpevent_field", sizeof(pld_dpevent_field)},
    {"pld_event_summary", sizeof(pld_event_summary)},
    {"pld_event_hole", sizeof(pld_event_hole)},
    {"pld_event_query", sizeof(pld_event_query)},
    {"pld_event_closed_answer", sizeof(pld_event_closed_answer)},
    {"pld_event_answer", sizeof(pld_event_answer)},
    {"pld_event_calibration", sizeof(pld_event_calibration)},
    {"pld_event_info", sizeof(pld_event_info)},
    {"pld_event_key", sizeof(pld_event_key)},
    {"pld_file_error", sizeof(pld_file_error)},
    {"pld_merge_run", sizeof(pld_merge_run)},
    {"pld_merge_schedule", sizeof(pld_merge_schedule)},
    {"pld_merge_plan", sizeof(pld_merge_plan)},
    {"pld_merge_point", sizeof(pld_merge_point)},
    {"pld_merge_report", sizeof(pld_merge_report)},
    {"pld_participation_params", sizeof(pld_participation_params)},
    {"pld_participation_limit", sizeof(pld_participation_limit)},
    {"pld_participation_thm41", sizeof(pld_participation_thm41)},
    {"pld_participation_calibration", sizeof(pld_participation_calibration)},
    {"pld_bound", sizeof(pld_bound)},
    {"pld_curve", sizeof(pld_curve)},
    {"pld_params", sizeof(pld_params)},
    {"pld_pmf_view", sizeof(pld_pmf_view)},
    {"pld_rdp_result", sizeof(pld_rdp_result)},
    {"pld_rdp_split_terms", sizeof(pld_rdp_split_terms)},
    {"pld_rdp_pair_terms", sizeof(pld_rdp_pair_terms)},
    {"pld_mspafl_bound", sizeof(pld_mspafl_bound)},
    {"pld_mspafl_theorem", sizeof(pld_mspafl_theorem)},
    {"pld_mspafl_sampling", sizeof(pld_mspafl_sampling)},
    {"pld_mspafl_setting", sizeof(pld_mspafl_setting)},
    {"pld_mspafl_report", sizeof(pld_mspafl_report)},
    {"pld_calibration", sizeof(pld_calibration)},
    {"pld_search_opts", sizeof(pld_search_opts)},
    {"pld_search_result", sizeof(pld_search_result)},
    {"pld_dpevent", sizeof(pld_dpevent)},
};

size_t pld_sizeof(const char *type_name)
{
  if (type_name == NULL)
    return 0;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (strcmp(sizes[i].name, type_name) == 0)
      return sizes[i].size;
  return 0;
}
