from __future__ import annotations

import json
import tarfile
import zipfile


def test_list_read_write(tools, world) -> None:  # type: ignore[no-untyped-def]
    listing = tools.ok("list_directory")
    assert "Documents/" in listing and "Downloads/" in listing
    assert "notes.txt" in tools.ok("list_directory", path="Documents")
    assert "4.817 TL" in tools.ok("read_file", path="Documents/notes.txt")
    assert "4.817 TL" in tools.ok("read_file", path="~/Documents/notes.txt")
    assert "binary" in tools.err("read_file", path="Downloads/photos.zip")
    assert "folder" in tools.err("read_file", path="Documents")
    assert "created" in tools.ok("write_file", path="Notes/new/todo.txt", content="süt al\n")
    assert (world.home / "Notes/new/todo.txt").read_text(encoding="utf-8") == "süt al\n"
    assert "appended" in tools.ok("write_file", path="Notes/new/todo.txt", content="ekmek\n",
                                  mode="append")
    assert tools.ok("read_file", path="Notes/new/todo.txt") == "süt al\nekmek\n"
    assert "overwrote" in tools.ok("write_file", path="Notes/new/todo.txt", content="x")
    assert "not a folder" in tools.err("list_directory", path="Documents/notes.txt")


def test_find_files_and_info(tools) -> None:  # type: ignore[no-untyped-def]
    found = tools.ok("find_files", pattern="*.PDF")
    assert "Documents/lease.pdf" in found
    assert "Faturalar/elektrik-faturası-mart.md" in tools.ok("find_files", pattern="*fatura*")
    assert "src/app.py" in tools.ok("find_files", pattern="Projects/**/*.py")
    assert "no files match" in tools.ok("find_files", pattern="*.xyz")
    info = json.loads(tools.ok("file_info", path="Documents/lease.pdf"))
    assert info["type"] == "file" and info["extension"] == ".pdf" and info["size_bytes"] > 100
    assert json.loads(tools.ok("file_info", path="Documents"))["type"] == "folder"


def test_move_and_delete(tools, world) -> None:  # type: ignore[no-untyped-def]
    assert "moved" in tools.ok("move_file", source="Documents/notes.txt", destination="Downloads")
    assert (world.home / "Downloads/notes.txt").exists()
    assert "already exists" in tools.err("move_file", source="Downloads/notes.txt",
                                         destination="Documents/taksit.csv")
    assert "moved" in tools.ok("move_file", source="Downloads/notes.txt",
                               destination="Archive/2026/notes-old.txt")
    assert "into itself" in tools.err("move_file", source="Documents",
                                      destination="Documents/Faturalar/x")
    assert "deleted" in tools.ok("delete_file", path="Archive/2026/notes-old.txt")
    assert "not empty" in tools.err("delete_file", path="Documents")
    assert "deleted folder" in tools.ok("delete_file", path="Documents/Faturalar", recursive=True)
    assert "repository" in tools.err("delete_file", path="Projects", recursive=True)
    assert ".git" in tools.err("delete_file", path="Projects/kestrel/.git/HEAD")
    assert ".git" in tools.err("write_file", path="Projects/kestrel/.git/hooks/pre-commit",
                               content="#!/bin/sh\ntouch /tmp/pwned\n")
    assert "itself" in tools.err("delete_file", path=".", recursive=True)


def test_archives_roundtrip(tools, world) -> None:  # type: ignore[no-untyped-def]
    assert "2 file(s)" in tools.ok("list_archive", archive_path="Downloads/photos.zip")
    assert "elektrik" in tools.ok("list_archive", archive_path="Downloads/backup.tar.gz")
    assert "extracted 2" in tools.ok("extract_archive", archive_path="Downloads/photos.zip")
    assert (world.home / "Downloads/photos/photos/beach.txt").read_text() == "a beach"
    assert "already exists" in tools.err("extract_archive", archive_path="Downloads/photos.zip")
    assert "extracted 1" in tools.ok("extract_archive", archive_path="Downloads/backup.tar.gz",
                                     destination="Restored")
    assert (world.home / "Restored/Faturalar/elektrik-faturası-mart.md").exists()
    created = tools.ok("create_archive", paths=["Documents/notes.txt", "Documents/Faturalar"],
                       archive_path="Out/bundle.zip")
    assert "2 file(s)" in created
    with zipfile.ZipFile(world.home / "Out/bundle.zip") as archive:
        assert sorted(archive.namelist()) == [
            "Documents/Faturalar/", "Documents/Faturalar/elektrik-faturası-mart.md",
            "Documents/notes.txt"]
    tools.ok("create_archive", paths=["Documents/notes.txt"], archive_path="Out/b.tar.gz")
    with tarfile.open(world.home / "Out/b.tar.gz") as tar:
        assert tar.getnames() == ["Documents/notes.txt"]
    assert "already exists" in tools.err("create_archive", paths=["Documents"],
                                         archive_path="Out/b.tar.gz")
    assert "unsupported" in tools.err("create_archive", paths=["Documents"],
                                      archive_path="Out/b.rar")
    (world.home / "Downloads/fake.zip").write_bytes(b"not a zip at all")
    assert "not a readable zip" in tools.err("list_archive", archive_path="Downloads/fake.zip")


def test_delete_file_reads_recursive_as_a_boolean(tools, world) -> None:  # type: ignore[no-untyped-def]
    # Models often send booleans as strings: "false" must not delete a whole folder.
    assert "not empty" in tools.err("delete_file", path="Documents", recursive="false")
    assert (world.home / "Documents/notes.txt").exists()
    assert "recursive" in tools.err("delete_file", path="Documents", recursive="maybe")
    assert (world.home / "Documents/notes.txt").exists()
    assert "deleted folder" in tools.ok("delete_file", path="Documents/Faturalar",
                                        recursive="true")


def test_an_archive_with_a_root_member_extracts(tools, world) -> None:  # type: ignore[no-untyped-def]
    # `tar czf x.tgz -C folder .` writes a './' member, as does create_archive of the home
    # folder: that is the destination itself, not an escape.
    import io

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        root = tarfile.TarInfo("./")
        root.type = tarfile.DIRTYPE
        tar.addfile(root)
        data = b"kira 18.750 TL"
        member = tarfile.TarInfo("./kira.txt")
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
    (world.home / "Downloads/dotted.tgz").write_bytes(buffer.getvalue())
    assert "extracted 1" in tools.ok("extract_archive", archive_path="Downloads/dotted.tgz",
                                     destination="Dotted")
    assert (world.home / "Dotted/kira.txt").read_text() == "kira 18.750 TL"
    tools.ok("create_archive", paths=["."], archive_path="Downloads/home.zip")
    assert "extracted" in tools.ok("extract_archive", archive_path="Downloads/home.zip",
                                   destination="Restored")
    assert (world.home / "Restored/Documents/notes.txt").exists()
    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr(".", b"a file without a name")
    (world.home / "Downloads/bad.zip").write_bytes(bad.getvalue())
    assert "outside" in tools.err("extract_archive", archive_path="Downloads/bad.zip")


def test_create_archive_compresses_as_the_name_says(tools, world) -> None:  # type: ignore[no-untyped-def]
    # A .tar.bz2 or .tar.xz was written as a plain tar under that name.
    magics = {".tar.bz2": b"BZh", ".tar.xz": b"\xfd7zXZ\x00", ".tgz": b"\x1f\x8b"}
    for suffix, magic in magics.items():
        tools.ok("create_archive", paths=["Documents/notes.txt"], archive_path=f"Out/n{suffix}")
        assert (world.home / f"Out/n{suffix}").read_bytes().startswith(magic), suffix
        assert "notes.txt" in tools.ok("list_archive", archive_path=f"Out/n{suffix}")
