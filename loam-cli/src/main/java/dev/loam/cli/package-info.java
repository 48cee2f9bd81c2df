/**
 * The option parser of the {@code ./loam} commands: each command declares its flags once, in a
 * table ({@link dev.loam.cli.Command}), and that table parses the command line, validates every
 * value before the command does anything, and prints {@code --help}.
 */
package dev.loam.cli;
