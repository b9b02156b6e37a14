/** Demo learners with different histories, so every analysis has something to say. */
type Kp = { id: string; title: string; description: string };
type Material = { id: string; title: string; content: string; kps: Kp[] };
export type DemoLearner = {
  id: string;
  email: string;
  name: string;
  /** Per knowledge point: answers oldest → newest (true = correct), spaced a day apart, ending `daysAgo` days ago. */
  history: Record<string, boolean[]>;
  sessions: { materialId: string; daysAgo: number; minutes: number }[];
  daysAgo: number;
  materials: string[];
  /** The learner's saved language (User.locale); unset learners follow their browser. */
  locale?: "zh-CN" | "en";
};

export const MATERIALS: Material[] = [
  {
    id: "mat_photosynthesis",
    title: "Photosynthesis",
    content:
      "Photosynthesis turns light energy into chemical energy. In the light-dependent reactions, chlorophyll in the thylakoid membranes absorbs light, splits water and releases oxygen, producing ATP and NADPH. In the Calvin cycle, in the stroma, the enzyme RuBisCO fixes carbon dioxide, and ATP and NADPH are used to build glucose. Limiting factors are light intensity, carbon dioxide concentration and temperature.",
    kps: [
      {
        id: "kp_light_reactions",
        title: "Light-dependent reactions",
        description:
          "Chlorophyll in the thylakoid membranes absorbs light, splits water, releases oxygen and produces ATP and NADPH.",
      },
      {
        id: "kp_calvin_cycle",
        title: "Calvin cycle",
        description:
          "In the stroma, RuBisCO fixes carbon dioxide and ATP and NADPH from the light reactions are used to build glucose.",
      },
      {
        id: "kp_limiting_factors",
        title: "Limiting factors",
        description:
          "The rate of photosynthesis is limited by light intensity, carbon dioxide concentration and temperature.",
      },
    ],
  },
  {
    id: "mat_linear_equations",
    title: "Linear equations",
    content:
      "A linear equation in one variable has the form ax + b = c. To solve it, perform the same operation on both sides: subtract b, then divide by a. The slope-intercept form of a line is y = mx + b, where m is the slope (rise over run) and b is the y-intercept. Two lines are parallel when their slopes are equal and perpendicular when the product of their slopes is -1.",
    kps: [
      {
        id: "kp_solving_linear",
        title: "Solving ax + b = c",
        description: "Isolate x by applying the same operation to both sides: subtract b, then divide by a.",
      },
      {
        id: "kp_slope_intercept",
        title: "Slope-intercept form",
        description: "y = mx + b, where m is the slope (rise over run) and b is the y-intercept.",
      },
      {
        id: "kp_parallel_perpendicular",
        title: "Parallel and perpendicular lines",
        description: "Parallel lines have equal slopes; perpendicular lines have slopes whose product is -1.",
      },
    ],
  },
  {
    id: "mat_french_verbs",
    title: "French present tense",
    content:
      "Regular -er verbs such as parler drop -er and add -e, -es, -e, -ons, -ez, -ent. The verb être is irregular: je suis, tu es, il est, nous sommes, vous êtes, ils sont. The verb avoir is irregular too: j'ai, tu as, il a, nous avons, vous avez, ils ont.",
    kps: [
      {
        id: "kp_er_verbs",
        title: "Regular -er verbs",
        description: "Drop -er and add -e, -es, -e, -ons, -ez, -ent: je parle, nous parlons, ils parlent.",
      },
      {
        id: "kp_etre",
        title: "The verb être",
        description: "Irregular: je suis, tu es, il est, nous sommes, vous êtes, ils sont.",
      },
      {
        id: "kp_avoir",
        title: "The verb avoir",
        description: "Irregular: j'ai, tu as, il a, nous avons, vous avez, ils ont.",
      },
    ],
  },
  // Chinese materials for the Chinese-speaking demo learner (li@example.com), as the source
  // documents of this product usually are: titles long enough to wrap on a phone.
  {
    id: "mat_zh_photosynthesis",
    title: "光合作用：光反应与暗反应",
    content:
      "光合作用把光能转化为化学能。在光反应阶段，类囊体薄膜上的叶绿素吸收光能，把水分解并释放氧气，同时产生ATP和NADPH。在暗反应（卡尔文循环）阶段，叶绿体基质中的RuBisCO酶固定二氧化碳，并利用ATP和NADPH合成葡萄糖。光照强度、二氧化碳浓度和温度是影响光合作用速率的主要因素。",
    kps: [
      {
        id: "kp_zh_light_reactions",
        title: "光反应",
        description: "类囊体薄膜上的叶绿素吸收光能，分解水、释放氧气，并产生ATP和NADPH。",
      },
      {
        id: "kp_zh_calvin_cycle",
        title: "暗反应（卡尔文循环）",
        description: "在叶绿体基质中，RuBisCO固定二氧化碳，利用光反应产生的ATP和NADPH合成葡萄糖。",
      },
      {
        id: "kp_zh_limiting_factors",
        title: "影响光合作用速率的环境因素（光照强度、二氧化碳浓度与温度）",
        description: "光合作用速率受光照强度、二氧化碳浓度和温度的限制。",
      },
    ],
  },
  {
    id: "mat_zh_linear_equations",
    title: "一元一次方程",
    content:
      "一元一次方程的一般形式是ax + b = c（a ≠ 0）。解方程时，在等式两边进行相同的运算：先减去b，再除以a。移项时要变号。列方程解应用题的关键是找出题目中的等量关系。",
    kps: [
      {
        id: "kp_zh_solving_linear",
        title: "解一元一次方程",
        description: "等式两边同时进行相同的运算：先移项（变号），再把系数化为1。",
      },
      {
        id: "kp_zh_word_problems",
        title: "列方程解应用题",
        description: "找出题目中的等量关系，设未知数，列出方程并求解，最后检验答案是否符合实际。",
      },
    ],
  },
];

/**
 * Demo passwords, for local use only (the README lists them). Seeded once per account: an account
 * that already has a password keeps it.
 */
export const DEMO_PASSWORDS = {
  admin: "admin-demo-password",
  learner: "learner-demo-password",
} as const;

export const ADMIN = { id: "user_admin", email: "admin@example.com", name: "Alex Admin" };

export const LEARNERS: DemoLearner[] = [
  {
    id: "user_ada",
    email: "ada@example.com",
    name: "Ada Lovelace",
    materials: ["mat_photosynthesis", "mat_linear_equations"],
    daysAgo: 1,
    history: {
      kp_light_reactions: [true, true, true, true, true],
      kp_calvin_cycle: [false, true, false, true, true],
      kp_limiting_factors: [true, true, false, true],
      kp_solving_linear: [true, true, true, true, true, true],
      kp_slope_intercept: [false, false, true, true],
      kp_parallel_perpendicular: [false, true],
    },
    sessions: [
      { materialId: "mat_photosynthesis", daysAgo: 1, minutes: 35 },
      { materialId: "mat_linear_equations", daysAgo: 2, minutes: 40 },
      { materialId: "mat_photosynthesis", daysAgo: 4, minutes: 25 },
    ],
  },
  {
    id: "user_ben",
    email: "ben@example.com",
    name: "Ben Carter",
    materials: ["mat_linear_equations", "mat_french_verbs"],
    daysAgo: 9,
    history: {
      kp_solving_linear: [false, false, true, false],
      kp_slope_intercept: [false, false, false],
      kp_parallel_perpendicular: [false, true, false, false],
      kp_er_verbs: [true, false, true, true],
      kp_etre: [false, false, false, true],
      kp_avoir: [false, false],
    },
    sessions: [
      { materialId: "mat_linear_equations", daysAgo: 9, minutes: 15 },
      { materialId: "mat_french_verbs", daysAgo: 12, minutes: 10 },
    ],
  },
  {
    id: "user_chen",
    email: "chen@example.com",
    name: "Chen Wei",
    materials: ["mat_french_verbs"],
    daysAgo: 0,
    history: { kp_er_verbs: [true] },
    sessions: [{ materialId: "mat_french_verbs", daysAgo: 0, minutes: 20 }],
  },
  {
    id: "user_li",
    email: "li@example.com",
    name: "李明",
    locale: "zh-CN",
    materials: ["mat_zh_photosynthesis", "mat_zh_linear_equations"],
    daysAgo: 1,
    history: {
      kp_zh_light_reactions: [true, true, false, true],
      kp_zh_calvin_cycle: [false, false, true, false],
      kp_zh_limiting_factors: [true, false, true, true, true],
      kp_zh_solving_linear: [true, true, true],
      kp_zh_word_problems: [false, true, false],
    },
    sessions: [
      { materialId: "mat_zh_photosynthesis", daysAgo: 1, minutes: 30 },
      { materialId: "mat_zh_linear_equations", daysAgo: 3, minutes: 20 },
    ],
  },
];
