"""The built-in catalogue's tool names: a public contract that corpora and users rely on.

Kept apart from the implementations so that loading and checking case files never
imports the tools themselves.
"""

from __future__ import annotations

BUILTIN_TOOLS_BY_GROUP: dict[str, tuple[str, ...]] = {
    "arithmetic-time": (
        "calculator",
        "current_datetime",
        "date_add",
        "date_diff",
        "convert_timezone",
        "convert_units",
    ),
    "documents": ("search_documents", "read_document"),
    "files-archives": (
        "list_directory",
        "read_file",
        "write_file",
        "find_files",
        "file_info",
        "move_file",
        "delete_file",
        "create_archive",
        "list_archive",
        "extract_archive",
    ),
    "code-git": (
        "git_status",
        "git_log",
        "git_diff",
        "git_show",
        "git_branches",
        "git_commit",
        "grep_code",
        "run_python",
    ),
    "web": ("web_search", "web_fetch"),
    "memory-calendar": (
        "memory_save",
        "memory_search",
        "calendar_list",
        "calendar_add",
        "calendar_delete",
        "reminder_add",
        "contacts_lookup",
    ),
    "messaging": ("send_message",),
}

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    name for names in BUILTIN_TOOLS_BY_GROUP.values() for name in names
)

#: Built-ins that change the world (files, the repository, the calendar, the outbox) or run
#: code that may. Every other built-in only reads. A write step is measured by its
#: arguments or by the state it leaves (docs/format.md); forbidding a read-only tool needs
#: a reason.
SIDE_EFFECTING_BUILTINS: frozenset[str] = frozenset({
    "write_file", "move_file", "delete_file", "create_archive", "extract_archive",
    "git_commit", "run_python",
    "memory_save", "calendar_add", "calendar_delete", "reminder_add",
    "send_message",
})
READ_ONLY_BUILTINS: frozenset[str] = BUILTIN_TOOL_NAMES - SIDE_EFFECTING_BUILTINS
#: The side-effecting built-ins whose purpose in a case is the change itself, so a step
#: expecting one is measured by its arguments or the state it leaves. ``run_python`` may
#: write too, but a case uses it for a computation, measured by evidence.
WRITE_BUILTINS: frozenset[str] = SIDE_EFFECTING_BUILTINS - {"run_python"}


