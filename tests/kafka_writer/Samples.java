import java.io.File;
final class Samples { static void main(File out) throws Exception { } }
