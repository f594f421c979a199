mod system;
