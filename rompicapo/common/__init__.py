"""The ground floor: what every family of rompicapo shares.

- `errors`: the error hierarchy and the CLI's exit statuses;
- `run`: the run contract (``time_limit``, ``node_limit``, ``limit``,
  ``seed``, ``jobs``, ``scheduler``, ``progress``), its checks and the progress event;
- `results`: the result protocol (``counts``, ``to_dict()``,
  ``report()``, ``verify()``) and JSON;
- `files`: reading text safely, checking output paths before the work,
  atomic writes, checksummed checkpoints;
- `memory`: estimate before allocating, refuse with a clear message;
- `parallel`: processes or threads on all cores, or a Dask cluster;
- `workers`: worker processes that die with their parent and take no signal while starting;
- `progress_files`: workers' progress and best answers in files, read
  by the parent's overseer thread (which also enforces the time limit on them);
- `timing`: stopwatches, deadlines, compilation timed apart;
- `pictures`: an SVG document with its title, PNG bytes with their alternative text.

Families import from here and never from each other. Everything public is re-exported here, so
``from rompicapo.common import InputError`` is the way to import it.
"""

from rompicapo.common.errors import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    InputError,
    InsufficientMemoryError,
    InternalError,
    NotVerifiable,
    RompicapoError,
    StopRequested,
    one_line,
)
from rompicapo.common.extras import EXTRAS, MissingExtraError, has_extra, require_extra
from rompicapo.common.files import (
    atomic_path,
    check_distinct_paths,
    check_input_path,
    check_output_path,
    decode_text,
    keep_elsewhere,
    loads_json,
    open_input,
    read_checked_json,
    read_input,
    read_text,
    stdin_binary,
    write_bytes_atomic,
    write_checked_json,
    write_or_keep,
    write_or_keep_where,
    write_or_print,
    write_text_atomic,
)
from rompicapo.common.memory import available_memory, check_memory, format_bytes, peak_rss_bytes
from rompicapo.common.parallel import (
    SCHEDULER_TIMEOUT,
    connect_scheduler,
    default_jobs,
    parse_scheduler_address,
    run_jobs,
)
from rompicapo.common.pictures import png_bytes, png_with_alt, svg_document
from rompicapo.common.progress_files import JobChannel, Overseer, ProgressFolder
from rompicapo.common.results import SearchResult, dumps_json, to_jsonable
from rompicapo.common.run import (
    MAX_DIGITS,
    Progress,
    ProgressCallback,
    ProgressEvent,
    check_int,
    check_limit,
    check_node_limit,
    check_seed,
    check_time_limit,
    renamed_keywords,
    resolve_jobs,
    retired_keywords,
    seed_sequence,
    seed_u64,
)
from rompicapo.common.timing import (
    Deadline,
    KernelStop,
    Stopwatch,
    compile_budget_note,
    compile_estimate,
    compiled_seconds,
    is_compile_notice,
    jit_warmup,
    watch_compilation,
)
from rompicapo.common.workers import die_with_parent, worker_context

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OUTPUT",
    "EXTRAS",
    "MAX_DIGITS",
    "SCHEDULER_TIMEOUT",
    "Deadline",
    "InputError",
    "InsufficientMemoryError",
    "InternalError",
    "JobChannel",
    "KernelStop",
    "MissingExtraError",
    "NotVerifiable",
    "Overseer",
    "Progress",
    "ProgressCallback",
    "ProgressEvent",
    "ProgressFolder",
    "RompicapoError",
    "SearchResult",
    "StopRequested",
    "Stopwatch",
    "atomic_path",
    "available_memory",
    "check_distinct_paths",
    "check_input_path",
    "check_int",
    "check_limit",
    "check_memory",
    "check_node_limit",
    "check_output_path",
    "check_seed",
    "check_time_limit",
    "compile_budget_note",
    "compile_estimate",
    "compiled_seconds",
    "connect_scheduler",
    "decode_text",
    "default_jobs",
    "die_with_parent",
    "dumps_json",
    "format_bytes",
    "has_extra",
    "is_compile_notice",
    "jit_warmup",
    "keep_elsewhere",
    "loads_json",
    "one_line",
    "open_input",
    "parse_scheduler_address",
    "peak_rss_bytes",
    "png_bytes",
    "png_with_alt",
    "read_checked_json",
    "read_input",
    "read_text",
    "renamed_keywords",
    "require_extra",
    "resolve_jobs",
    "retired_keywords",
    "run_jobs",
    "seed_sequence",
    "seed_u64",
    "stdin_binary",
    "svg_document",
    "to_jsonable",
    "watch_compilation",
    "worker_context",
    "write_bytes_atomic",
    "write_checked_json",
    "write_or_keep",
    "write_or_keep_where",
    "write_or_print",
    "write_text_atomic",
]
