package a.b;

import java.util.*;
import static java.util.Objects.requireNonNull;

@SuppressWarnings("unchecked")
public sealed interface Shape permits Circle, Square {
    default double area() { return 0; }
    static Shape unit() { return new Circle(1); }
}

record Circle(double r) implements Shape {
    Circle {
        if (r < 0) throw new IllegalArgumentException();
    }
    public double area() { return Math.PI * r * r; }
}

final class Square implements Shape {
    private final double side;
    Square(double side) { this.side = side; }
}

enum State {
    OPEN { void close() {} }, CLOSED;
    void close() {}
}

class Outer<T extends Comparable<T>> {
    static int counter;
    private final Object lock = new Object();
    private volatile long epoch;
    static { counter = 1; }
    { epoch = 0; }

    class Inner {
        long read() { return epoch; }
    }

    <R> R apply(java.util.function.Function<T, R> f, T t) { return f.apply(t); }

    String describe(Object o) {
        String text = """
            a text block
            """;
        return switch (o) {
            case Integer i when i > 0 -> "positive";
            case String s -> s;
            default -> {
                yield text;
            }
        };
    }

    void everything(List<String> xs, int... more) throws Exception {
        outer:
        for (int i = 0, j = 10; i < j; i++, j--) {
            for (String x : xs) {
                if (x.isEmpty()) continue outer;
                if (x.length() > 3) break outer;
            }
        }
        try (var in = new java.io.StringReader("x"); java.io.Reader other = new java.io.StringReader("y")) {
            in.read();
        } catch (java.io.IOException | RuntimeException e) {
            throw new RuntimeException(e);
        } finally {
            epoch++;
        }
        if (xs instanceof ArrayList<String> list && !list.isEmpty()) {
            list.get(0);
        }
        int[] arr = new int[] {1, 2, 3};
        int[][] grid = new int[3][4];
        arr[0] += grid[1][2];
        Runnable r = () -> { synchronized (lock) { epoch++; } };
        java.util.function.Supplier<List<String>> s = ArrayList::new;
        xs.stream().map(String::length).filter(n -> n > epoch).forEach(System.out::println);
        new Thread(r).start();
        Object anon = new Object() {
            @Override public String toString() { return "anon" + epoch; }
        };
        class Local { int v = counter; }
        new Local();
        do { epoch--; } while (epoch > 0);
        assert epoch >= 0 : "negative";
        switch (more.length) {
            case 0: break;
            case 1, 2: epoch = more[0]; break;
            default: epoch = ~epoch;
        }
        requireNonNull(this).hashCode();
        Outer.this.epoch = epoch << 2;
        this.<String>apply(null, null);
        super.toString();
        long l = (long) (epoch > 0 ? epoch : -epoch);
        boolean b = !(l == 0) || l != 1 && l >= 2;
    }
}
