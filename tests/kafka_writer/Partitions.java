import java.io.File;
final class Partitions { static void main(File out) throws Exception { } }
