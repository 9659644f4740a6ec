package dev.fencedqueue.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What Linux reports about another process in {@code /proc/<pid>}: resident memory ({@code VmRSS} of
 * {@code status}, what a container's memory limit counts) and CPU time ({@code utime + stime} of {@code stat}).
 */
final class ProcessStats {

    /** Clock ticks per second of {@code /proc/<pid>/stat} ({@code getconf CLK_TCK}: 100 on Linux x86_64). */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessStats() {
    }

    /**
     * @param pid a running process
     * @return its resident set size, in MiB
     * @throws IllegalStateException when the process is gone
     */
    static double residentMiB(long pid) {
        for (String line : read(pid, "status").split("\n")) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/" + pid + "/status");
    }

    /**
     * @param pid a running process
     * @return the CPU time it used so far (user + system, all threads), in microseconds
     */
    static long cpuMicros(long pid) {
        String stat = read(pid, "stat");
        // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks * 1_000_000 / TICKS_PER_SECOND;
    }

    /**
     * @param pid a running process
     * @return the CPU time it used so far in the kernel (system time, all threads: socket writes, ...), in microseconds
     */
    static long systemCpuMicros(long pid) {
        String stat = read(pid, "stat");
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[12]) * 1_000_000 / TICKS_PER_SECOND;
    }

    private static String read(long pid, String file) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/" + pid + "/" + file + " (has the process exited?)", e);
        }
    }
}
